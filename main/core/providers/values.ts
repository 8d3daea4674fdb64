// Schemas for the values of provider variables, shared by the declarations: every value arrives as
// text (environment, .env, settings store) and is checked once at start-up by the loader.
import { z } from 'zod';

/** An http(s) URL (the Gemini SDK takes an HTTP base and picks the socket scheme itself). */
export const httpUrl = z
  .string()
  .refine((v) => URL.canParse(v) && /^https?:$/.test(new URL(v).protocol), 'must be an http(s) URL');
/** http(s) or ws(s): WebSocket endpoints, and compatible local servers speak plain ws://. */
export const socketUrl = z
  .string()
  .refine((v) => URL.canParse(v) && /^(?:https?|wss?):$/.test(new URL(v).protocol), 'must be an http(s) or ws(s) URL');
/** A comma-separated list. */
export const list = z.string().transform((v) =>
  v
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean),
);

/** A declaration's values object: its variables, each optional text unless the schema says more. */
export function valuesSchema<T extends z.ZodRawShape>(shape: T) {
  return z.object(shape);
}
