/** CONTRACT §1: ids are UUIDs; v7 is time-ordered, so primary-key inserts stay at the end of the b-tree. */
export const newId = (): string => Bun.randomUUIDv7()

/** Any 8-4-4-4-12 hex string: it is looked up (and may be a 404) rather than refused. */
export const UUID_PATTERN = /^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$/

export const isUuid = (value: string): boolean => UUID_PATTERN.test(value)
