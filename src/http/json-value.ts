import { z } from 'zod'

type JsonValue = string | number | boolean | null | JsonValue[] | { [key: string]: JsonValue }

/**
 * Any JSON value, as `z.json()`, named in the OpenAPI document (`#/components/schemas/JsonValue`). It refers to
 * itself: unnamed, each route's schema pointed at a definition the document did not contain. Registered rather
 * than `.meta({ id })`, which names a copy while the recursion still refers to the original.
 */
export const jsonValue: z.ZodType<JsonValue> = z.lazy(() =>
  z.union([z.string(), z.number(), z.boolean(), z.null(), z.array(jsonValue), z.record(z.string(), jsonValue)]),
)
z.globalRegistry.add(jsonValue, { id: 'JsonValue' })
