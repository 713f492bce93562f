// Files embedded into the compiled binary (`with { type: 'file' }` gives their path inside it).
declare module 'swagger-ui-dist/swagger-ui-bundle.js' {
	const path: string
	export default path
}
declare module 'swagger-ui-dist/swagger-ui.css' {
	const path: string
	export default path
}
// Migration files are imported as text (`with { type: 'text' }`) so the compiled binary embeds them.
declare module '*.sql' {
	const text: string
	export default text
}
// The web application's assets (src/server/web/assets/, loaded by web/kit.tsx), embedded the same way.
declare module 'htmx.org/dist/htmx.min.js' {
	const path: string
	export default path
}
declare module '*.css' {
	const path: string
	export default path
}
declare module '*/assets/app.js' {
	const path: string
	export default path
}
