/** docs/web.md, search: at most this many characters of a search are used, so a query costs the same whatever is typed. */
export const SEARCH_MAX_LENGTH = 100
