import type { DownloadFile } from './service'

/** Text for HTML: every character that could open markup or an attribute is escaped. */
export const escapeHtml = (text: string): string =>
	text.replace(/[&<>"'`=]/g, (char) => `&#${char.codePointAt(0)};`)

const size = (bytes: number): string => (bytes >= 1024 * 1024 ? `${(bytes / 1024 / 1024).toFixed(1)} MB` : `${Math.ceil(bytes / 1024)} KB`)

/**
 * CONTRACT §12 GET /download: how to install the client from this server.
 * No script, no style, nothing from elsewhere: plain HTML under the app's
 * CSP, every value escaped.
 */
export function downloadPage(input: { origin: string; version: string; pkg?: { sha256: string; size: number }; files: DownloadFile[] }): string {
	const e = escapeHtml
	const { origin, pkg, files } = input
	const install = `npm install -g ${origin}/download/cfgsync.tgz`
	const packageSection = pkg
		? `<p>With Node.js 20 or later (Claude Code, Codex and Gemini CLI users have it already):</p>
<pre><code>${e(install)}</code></pre>
<p>Package <a href="/download/cfgsync.tgz">cfgsync.tgz</a> (${e(size(pkg.size))}), SHA-256 <code>${e(pkg.sha256)}</code></p>`
		: `<p>This server was built without the client package (<code>npm run build</code> embeds it).</p>`
	const rows = files
		.map((file) => `<tr><td><a href="/download/${encodeURIComponent(file.name)}">${e(file.name)}</a></td><td>${e(size(file.size))}</td><td><code>${e(file.sha256)}</code></td></tr>`)
		.join('\n')
	const executables =
		files.length > 0
			? `<h2>Standalone executables</h2>
<p>No Node.js needed: download the one for your system, make it executable (<code>chmod +x</code>) and put it on your PATH as <code>cfgsync</code>.</p>
<table>
<thead><tr><th scope="col">File</th><th scope="col">Size</th><th scope="col">SHA-256</th></tr></thead>
<tbody>
${rows}
</tbody>
</table>`
			: `<h2>Standalone executables</h2>
<p>None on this server. The operator can build them with <code>npm run build:release</code> and put them in the downloads directory (<code>--downloads-dir</code>).</p>`
	return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Install the cfgsync client</title>
</head>
<body>
<main>
<h1>Install the cfgsync client ${e(input.version)}</h1>
${packageSection}
${executables}
<p>Every file's SHA-256 is in <a href="/download/SHA256SUMS">SHA256SUMS</a> (check with <code>sha256sum -c SHA256SUMS --ignore-missing</code>).</p>
<h2>Then</h2>
<pre><code>${e(`cfgsync login --server ${origin}`)}
cfgsync push claude-code</code></pre>
</main>
</body>
</html>
`
}
