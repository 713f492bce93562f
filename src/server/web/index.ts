// The web application (docs/web.md): the route table in routes.tsx, what handlers share in kit.tsx,
// the handlers beside their views in pages/, the cookie gate in session.ts.
export { webRoutes, type WebDeps } from './routes'
