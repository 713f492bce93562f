import { openapi } from '@elysiajs/openapi'
import { Elysia } from 'elysia'
import swaggerBundle from 'swagger-ui-dist/swagger-ui-bundle.js' with { type: 'file' }
import swaggerCss from 'swagger-ui-dist/swagger-ui.css' with { type: 'file' }
import { z } from 'zod'
import packageJson from '../../../package.json' with { type: 'json' }
import { readFileSync } from 'node:fs'
import { compressedAsset, compressedResponse } from '../lib/compression'
import { htmlResponse } from '../lib/http'

const ASSETS = '/docs/assets'

/**
 * The API page. Our own instead of the plugin's, whose page starts Swagger UI
 * from an inline script that docs/api.md's Content-Security-Policy forbids.
 */
const DOCS_PAGE = `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>cfgsync API</title>
<link rel="stylesheet" href="${ASSETS}/swagger-ui.css">
</head>
<body>
<div id="swagger-ui"></div>
<script src="${ASSETS}/swagger-ui-bundle.js"></script>
<script src="${ASSETS}/start.js"></script>
</body>
</html>
`
/** Swagger UI's files, compressed once per encoding when the browser accepts it (docs/web.md: pages, styles and scripts). */
const swaggerScript = compressedAsset(() => new Uint8Array(readFileSync(swaggerBundle)), {
	'content-type': 'text/javascript;charset=utf-8'
})
const swaggerStyles = compressedAsset(() => new Uint8Array(readFileSync(swaggerCss)), {
	'content-type': 'text/css;charset=utf-8'
})
const START_SCRIPT = `window.ui = SwaggerUIBundle({ url: '/openapi.json', dom_id: '#swagger-ui' })\n`

/** OpenAPI header parameters generated from a zod object of header names. */
export function headerParameters(schema: z.ZodObject) {
	const json = toJsonSchema(schema) as { properties?: Record<string, { description?: string }>; required?: string[] }
	return Object.entries(json.properties ?? {}).map(([name, property]) => ({
		name,
		in: 'header',
		required: json.required?.includes(name) ?? false,
		description: property.description,
		schema: { ...property, description: undefined }
	}))
}

/**
 * Routes list the headers they read under `detail['x-header-parameters']`
 * instead of a `headers` schema: Elysia would otherwise copy and validate
 * every request header on every request (12 µs on the hot read path). This
 * folds them into the document's parameters when it is served.
 */
function withHeaderParameters(document: unknown): unknown {
	const paths = (document as { paths?: Record<string, Record<string, Record<string, unknown>>> }).paths ?? {}
	for (const item of Object.values(paths)) {
		for (const operation of Object.values(item)) {
			const extra = operation['x-header-parameters'] as { name: string }[] | undefined
			if (!extra) continue
			const parameters = (operation.parameters as { name: string }[] | undefined) ?? []
			operation.parameters = [...parameters.filter((p) => !extra.some((e) => e.name === p.name)), ...extra]
			delete operation['x-header-parameters']
		}
	}
	return document
}

/** zod → JSON Schema for OpenAPI 3.1, without a `$schema` on every nested schema. */
function toJsonSchema(schema: z.ZodType) {
	const { $schema: _, ...rest } = z.toJSONSchema(schema, { unrepresentable: 'any', io: 'input' })
	return rest
}

/**
 * `/openapi.json` and the API page at `/docs`, generated from the zod schemas
 * that validate requests. The page is Swagger UI served from the binary itself
 * (swagger-ui-dist: one self-contained bundle, no runtime dependencies), so it
 * works on a server with no internet access.
 */
export const openapiPlugin = () =>
	new Elysia({ name: 'openapi' })
		// Local: it only sees this plugin's routes (the document and the page assets).
		.onAfterHandle(({ request, response }) =>
			request.url.endsWith('/openapi.json') ? withHeaderParameters(response) : undefined
		)
		.get(`${ASSETS}/swagger-ui-bundle.js`, ({ request }) => swaggerScript(request), { detail: { hide: true } })
		.get(`${ASSETS}/swagger-ui.css`, ({ request }) => swaggerStyles(request), { detail: { hide: true } })
		.get(
			`${ASSETS}/start.js`,
			() => new Response(START_SCRIPT, { headers: { 'content-type': 'text/javascript;charset=utf-8' } }),
			{ detail: { hide: true } }
		)
		.get('/docs', ({ request }) => compressedResponse(request, htmlResponse(DOCS_PAGE)), { detail: { hide: true } })
		.use(
			openapi({
				path: '/docs',
				specPath: '/openapi.json',
				provider: null,
				// `data` is a z.custom (zod would drop `__proto__` keys); it is documented by its own metadata.
				mapJsonSchema: { zod: toJsonSchema },
				documentation: {
					info: {
						title: 'cfgsync',
						version: packageJson.version,
						description:
							'Self-hosted configuration sync for developer tools. Every /api route except POST /api/auth/login needs `Authorization: Bearer <API key>`. Errors are `{"error", "code", "details?"}`.'
					},
					components: {
						securitySchemes: {
							bearer: { type: 'http', scheme: 'bearer', description: 'cs_ followed by 64 hex characters' }
						}
					},
					security: [{ bearer: [] }]
				}
			})
		)
