/** Something that uses a field, an event or a template: its id and name, for a "used by" list. */
export type Reference = { id: string; name: string }
