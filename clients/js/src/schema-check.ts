import { CLIENT_FRAME_DEFS, FRAME_SCHEMA_DEFS, SERVER_FRAME_DEFS } from "./frames.generated.js";
import type { ClientFrame, ServerFrame } from "./frames.generated.js";

/**
 * Frames checked against the wire schema the types are generated from (the subset of JSON Schema that
 * scripts/generate-frames.mjs allows). Decoding never throws: a frame that does not fit comes back as a reason naming the field.
 */

interface SchemaNode {
  $ref?: string;
  type?: string | string[];
  const?: unknown;
  enum?: unknown[];
  properties?: Record<string, SchemaNode>;
  required?: string[];
  additionalProperties?: boolean | SchemaNode;
  items?: SchemaNode;
  anyOf?: SchemaNode[];
  oneOf?: SchemaNode[];
  pattern?: string;
}

const DEFS = FRAME_SCHEMA_DEFS as Record<string, SchemaNode>;

/** What decoding one frame gave: the frame, or why it is not one. */
export type Decoded<F> = { ok: true; frame: F } | { ok: false; reason: string };

/**
 * Whether {@code value} fits the definition {@code name}; the first misfit, named by its path, when not. {@code strict} refuses
 * fields the schema does not name: the tests use it to prove the types know every field the server writes; the client does
 * not, so that it works with a newer server that adds a field.
 */
export function misfit(value: unknown, name: string, strict: boolean): string | undefined {
  const def = DEFS[name];
  if (def === undefined) {
    throw new Error(`the schema has no definition ${name}`);
  }
  return check(value, def, "frame", strict);
}

function typeOf(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "array";
  if (typeof value === "number") return Number.isInteger(value) ? "integer" : "number";
  return typeof value;
}

function describe(node: SchemaNode): string {
  if (node.$ref !== undefined) return node.$ref.replace("#/$defs/", "");
  if (node.enum !== undefined) return `one of ${node.enum.map((value) => JSON.stringify(value)).join(", ")}`;
  if (node.const !== undefined) return JSON.stringify(node.const);
  return Array.isArray(node.type) ? node.type.join(" or ") : String(node.type);
}

function check(value: unknown, node: SchemaNode, path: string, strict: boolean): string | undefined {
  if (node.$ref !== undefined) {
    return check(value, DEFS[node.$ref.replace("#/$defs/", "")] as SchemaNode, path, strict);
  }
  const alternatives = node.anyOf ?? node.oneOf;
  if (alternatives !== undefined) {
    return alternatives.some((alternative) => check(value, alternative, path, strict) === undefined)
      ? undefined
      : `${path} must be ${alternatives.map(describe).join(" or ")}`;
  }
  if (node.const !== undefined && value !== node.const) {
    return `${path} must be ${JSON.stringify(node.const)}`;
  }
  if (node.enum !== undefined && !node.enum.includes(value)) {
    return `${path} must be ${describe(node)}, was ${JSON.stringify(value)}`;
  }
  if (node.type !== undefined) {
    const allowed = Array.isArray(node.type) ? node.type : [node.type];
    const actual = typeOf(value);
    if (!allowed.includes(actual) && !(actual === "integer" && allowed.includes("number"))) {
      return `${path} must be ${describe(node)}, was ${actual}`;
    }
  }
  if (typeof value === "string" && node.pattern !== undefined && !new RegExp(node.pattern, "u").test(value)) {
    return `${path} must match ${node.pattern}`;
  }
  if (Array.isArray(value) && node.items !== undefined) {
    for (let i = 0; i < value.length; i++) {
      const problem = check(value[i], node.items, `${path}[${i}]`, strict);
      if (problem !== undefined) return problem;
    }
  }
  if (typeOf(value) === "object") {
    return checkObject(value as Record<string, unknown>, node, path, strict);
  }
  return undefined;
}

function checkObject(value: Record<string, unknown>, node: SchemaNode, path: string, strict: boolean): string | undefined {
  for (const field of node.required ?? []) {
    if (!(field in value)) return `${path}.${field} is required`;
  }
  const properties = node.properties ?? {};
  for (const [field, fieldValue] of Object.entries(value)) {
    const property = properties[field];
    if (property !== undefined) {
      const problem = check(fieldValue, property, `${path}.${field}`, strict);
      if (problem !== undefined) return problem;
    } else if (typeof node.additionalProperties === "object") {
      const problem = check(fieldValue, node.additionalProperties, `${path}.${field}`, strict);
      if (problem !== undefined) return problem;
    } else if (strict && node.additionalProperties === false) {
      return `${path}.${field} is not a field the schema names`;
    }
  }
  return undefined;
}

function decode<F>(text: string, defs: Record<string, string>, side: string, strict: boolean): Decoded<F> {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    return { ok: false, reason: `not JSON: ${(error as Error).message}` };
  }
  if (typeOf(value) !== "object") {
    return { ok: false, reason: "a frame must be a JSON object" };
  }
  const type = (value as { type?: unknown }).type;
  if (typeof type !== "string" || !Object.hasOwn(defs, type)) {
    return { ok: false, reason: `not a ${side} frame type: ${JSON.stringify(type)}` };
  }
  const problem = misfit(value, defs[type] as string, strict);
  return problem === undefined ? { ok: true, frame: value as F } : { ok: false, reason: `${type}: ${problem}` };
}

/** A frame from the server, checked; fields this client does not know are let through unless {@code strict}. */
export function decodeServerFrame(text: string, strict = false): Decoded<ServerFrame> {
  return decode<ServerFrame>(text, SERVER_FRAME_DEFS, "server", strict);
}

/** A frame a client sends, checked strictly: the client never sends a field the server does not know. */
export function decodeClientFrame(text: string): Decoded<ClientFrame> {
  return decode<ClientFrame>(text, CLIENT_FRAME_DEFS, "client", true);
}
