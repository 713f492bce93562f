import { render } from 'preact-render-to-string'
import type { DownloadFile } from '../../modules/download/service'
import { assets } from '../kit'

// GET /download (docs/client.md, installing it from your server): how to install the client from this server. Its route is the download
// module's (public, in the OpenAPI document); this is the page it renders. No script and nothing from
// elsewhere: plain HTML under the app's CSP with the application's stylesheet, without its layout (no session here).

/** Text for HTML: every character that could open markup or an attribute is escaped. */
export const escapeHtml = (text: string): string => text.replace(/[&<>"'`=]/g, (char) => `&#${char.codePointAt(0)};`)

const size = (bytes: number): string =>
	bytes >= 1024 * 1024 ? `${(bytes / 1024 / 1024).toFixed(1)} MB` : `${Math.ceil(bytes / 1024)} KB`

/**
 * A command to copy. It prints the address from the request (Host, or the
 * forwarded host of a trusted proxy), so it is escaped with escapeHtml, which
 * also covers quotes, backticks and `=`, as this page has always done.
 */
const Command = ({ lines, label }: { lines: string[]; label: string }) => (
	// A region of its own, focusable, since a long address scrolls it sideways (axe: scrollable-region-focusable).
	// biome-ignore lint/a11y/useSemanticElements: the command must stay a <pre>; the role names it as a scrollable region.
	<pre tabindex={0} role="region" aria-label={label}>
		<code dangerouslySetInnerHTML={{ __html: lines.map(escapeHtml).join('\n') }} />
	</pre>
)

export interface DownloadPageData {
	origin: string
	version: string
	pkg?: { sha256: string; size: number }
	files: DownloadFile[]
}

export function DownloadPage({ origin, version, pkg, files }: DownloadPageData) {
	return (
		<html lang="en">
			<head>
				<meta charset="utf-8" />
				<meta name="viewport" content="width=device-width, initial-scale=1" />
				<title>Install the cfgsync client</title>
				{/* No favicon request: the browser would otherwise ask for /favicon.ico and log its 404. */}
				<link rel="icon" href="data:," />
				<link rel="stylesheet" href={assets().css} />
			</head>
			<body>
				<main>
					<h1>Install the cfgsync client {version}</h1>
					{pkg ? (
						<>
							<p>With Node.js 20 or later (Claude Code, Codex and Gemini CLI users have it already):</p>
							<Command label="Install command" lines={[`npm install -g ${origin}/download/cfgsync.tgz`]} />
							<p>
								Package <a href="/download/cfgsync.tgz">cfgsync.tgz</a> ({size(pkg.size)}), SHA-256{' '}
								<code class="hash">{pkg.sha256}</code>
							</p>
						</>
					) : (
						<p>
							This server was built without the client package (<code>npm run build</code> embeds it).
						</p>
					)}
					<h2>Standalone executables</h2>
					{files.length > 0 ? (
						<>
							<p>
								No Node.js needed: download the one for your system, make it executable (<code>chmod +x</code>) and put
								it on your PATH as <code>cfgsync</code>.
							</p>
							<table class="stack-on-phone">
								<thead>
									<tr>
										<th scope="col">File</th>
										<th scope="col">Size</th>
										<th scope="col">SHA-256</th>
									</tr>
								</thead>
								<tbody>
									{files.map((file) => (
										<tr>
											<td data-label="File">
												<a href={`/download/${encodeURIComponent(file.name)}`}>{file.name}</a>
											</td>
											<td data-label="Size">{size(file.size)}</td>
											<td data-label="SHA-256">
												<code class="hash">{file.sha256}</code>
											</td>
										</tr>
									))}
								</tbody>
							</table>
						</>
					) : (
						<p>
							None on this server. The operator can build them with <code>npm run build:release</code> and put them in
							the downloads directory (<code>--downloads-dir</code>).
						</p>
					)}
					<p>
						Every file's SHA-256 is in <a href="/download/SHA256SUMS">SHA256SUMS</a> (check with{' '}
						<code>sha256sum -c SHA256SUMS --ignore-missing</code>).
					</p>
					<h2>Then</h2>
					<Command label="First commands" lines={[`cfgsync login --server ${origin}`, 'cfgsync push claude-code']} />
				</main>
			</body>
		</html>
	)
}

/** The page as HTML, with its doctype. */
export const downloadPage = (data: DownloadPageData): string => `<!doctype html>${render(<DownloadPage {...data} />)}`
