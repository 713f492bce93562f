import { render } from 'preact-render-to-string'
import { CopyButton, Layout, type ViewContext } from '../../web/layout'
import type { DownloadFile } from './service'

// GET /download (docs/client.md, installing it from your server): how to install the client from this server. Its route is the download
// module's (public, in the OpenAPI document); this is the page it renders, in the application's layout (with
// its navigation for a signed-in person: the module is given the view context of the request).

/** Text for HTML: every character that could open markup or an attribute is escaped. */
export const escapeHtml = (text: string): string => text.replace(/[&<>"'`=]/g, (char) => `&#${char.codePointAt(0)};`)

const size = (bytes: number): string =>
	bytes >= 1024 * 1024 ? `${(bytes / 1024 / 1024).toFixed(1)} MB` : `${Math.ceil(bytes / 1024)} KB`

/**
 * A command to copy, with "Copy" beside it (docs/web.md: shown-once and copied text has a Copy button). It
 * prints the address from the request (Host, or the forwarded host of a trusted proxy), so it is escaped with
 * escapeHtml, which also covers quotes, backticks and `=`, as this page has always done. Long lines wrap at
 * 390 px rather than hide behind a sideways scroll.
 */
const Command = ({ id, lines, label }: { id: string; lines: string[]; label: string }) => (
	<>
		<CopyButton target={id} label={label} />
		<div id={id} class="command">
			{/* biome-ignore lint/a11y/useSemanticElements: the command must stay a <pre>; the role names it as a scrollable region. */}
			<pre tabindex={0} role="region" aria-label={label}>
				<code dangerouslySetInnerHTML={{ __html: lines.map(escapeHtml).join('\n') }} />
			</pre>
		</div>
	</>
)

export interface DownloadPageData {
	origin: string
	version: string
	pkg?: { sha256: string; size: number }
	files: DownloadFile[]
	/** Who is looking: the application's header and navigation when signed in (docs/web.md). */
	view: ViewContext
}

/**
 * GET /download: what an end user does to install the client, in the application's layout. Nothing here
 * is for the operator (how to build the files is in docs/operations.md); a server with nothing to offer
 * says whom to ask.
 */
export function DownloadPage({ origin, version, pkg, files, view }: DownloadPageData) {
	return (
		<Layout ctx={view} title="Install the client">
			<h1>Install the cfgsync client {version}</h1>
			{pkg ? (
				<>
					<p>With Node.js 20 or later (Claude Code, Codex and Gemini CLI users have it already):</p>
					<Command
						id="install-command"
						label="Install command"
						lines={[`npm install -g ${origin}/download/cfgsync.tgz`]}
					/>
					<p>
						Package <a href="/download/cfgsync.tgz">cfgsync.tgz</a> ({size(pkg.size)}), SHA-256{' '}
						<code class="hash">{pkg.sha256}</code>
					</p>
				</>
			) : null}
			{files.length > 0 ? (
				<>
					<h2>Standalone executables</h2>
					<p>
						No Node.js needed: download the one for your system, make it executable (<code>chmod +x</code>) and put it
						on your PATH as <code>cfgsync</code>.
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
			) : null}
			{!pkg && files.length === 0 ? (
				<p>This server has no client to download yet. Ask the person who runs it to add one.</p>
			) : (
				<p>
					Every file's SHA-256 is in <a href="/download/SHA256SUMS">SHA256SUMS</a> (check with{' '}
					<code>sha256sum -c SHA256SUMS --ignore-missing</code>).
				</p>
			)}
			<h2>Then</h2>
			<Command
				id="first-commands"
				label="First commands"
				lines={[`cfgsync login --server ${origin}`, 'cfgsync push claude-code']}
			/>
		</Layout>
	)
}

/** The page as HTML, with its doctype. */
export const downloadPage = (data: DownloadPageData): string => `<!doctype html>${render(<DownloadPage {...data} />)}`
