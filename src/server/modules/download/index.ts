import { Elysia } from 'elysia'
import packageJson from '../../../../package.json' with { type: 'json' }
import { compressedResponse } from '../../lib/compression'
import { AppError } from '../../lib/errors'
import { htmlResponse, NO_STORE } from '../../lib/http'
import { type DownloadPageData, downloadPage } from './page'
import { PACKAGE_NAME, SUMS_NAME, type Downloads } from './service'

const attachment = (name: string, type: string) => ({
	'content-type': type,
	'content-disposition': `attachment; filename="${name}"`
})

/**
 * docs/client.md (no key needed): GET /download (a page), /download/cfgsync.tgz
 * (the npm package embedded in this binary), /download/SHA256SUMS, and
 * /download/<file> for the executables in the downloads directory. Anything
 * else, a path that leaves that directory included, is a 404. `originOf` is
 * the address the page prints (docs/api.md: the public URL, or the request's
 * Host through trusted proxies only); the page is never stored by a cache, so
 * one request's Host is never shown to another person.
 */
export const downloadRoutes = (
	downloads: Downloads,
	originOf: (request: Request) => string,
	/** The web application's view of a request (signed in or not), so the page has its header and navigation. */
	viewOf: (request: Request) => Promise<DownloadPageData['view']>
) =>
	new Elysia({ tags: ['download'] })
		// The page goes out compressed when the browser accepts it, like the application's (docs/web.md); the files are not text.
		.mapResponse(({ request, responseValue }) =>
			responseValue instanceof Response ? compressedResponse(request, responseValue) : undefined
		)
		.get(
			'/download',
			async ({ request }) => {
				const pkg = await downloads.clientPackage()
				const page = downloadPage({
					origin: originOf(request),
					version: packageJson.version,
					pkg: pkg && { sha256: pkg.sha256, size: pkg.blob.size },
					files: await downloads.files(),
					view: await viewOf(request)
				})
				return htmlResponse(page, { headers: NO_STORE })
			},
			{ detail: { summary: 'How to install the cfgsync client from this server', security: [] } }
		)
		.get(
			'/download/:file',
			async ({ params }) => {
				if (params.file === PACKAGE_NAME) {
					const pkg = await downloads.clientPackage()
					if (!pkg)
						throw new AppError(
							'not_found',
							'This server was built without the client package: npm run build embeds it in dist/cfgsync-server.'
						)
					return new Response(pkg.blob, { headers: attachment(PACKAGE_NAME, 'application/gzip') })
				}
				if (params.file === SUMS_NAME)
					return new Response(await downloads.sumsFile(), { headers: { 'content-type': 'text/plain;charset=utf-8' } })
				const file = downloads.file(params.file)
				if (!file) throw new AppError('not_found', 'No such download.')
				return new Response(Bun.file(file.path), { headers: attachment(file.name, 'application/octet-stream') })
			},
			{
				detail: {
					summary: 'The client package, SHA256SUMS, or an executable from the downloads directory',
					security: []
				}
			}
		)
