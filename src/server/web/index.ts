// The web application (CONTRACT §8, STYLE §13): routes in routes.tsx (JSX needs .tsx), the gate in session.ts, views in views/.
export { webRoutes, type WebDeps } from './routes'
