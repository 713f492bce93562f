/** CONTRACT §1: ids are UUIDs; v7 is time-ordered, so primary-key inserts stay at the end of the b-tree. */
export const newId = (): string => Bun.randomUUIDv7()

