// The /download page is a web view (web/pages/download.tsx), rendered with preact like the application's
// pages; the route that serves it stays in this module, public and in the OpenAPI document.
export { downloadPage, escapeHtml, type DownloadPageData } from '../../web/pages/download'
