import type { ErrorFrame } from "./frames.generated.js";

/** The server refused a request for good, or the client refused it before sending (the frame names the field or rule). */
export class ParleyError extends Error {
  readonly code: ErrorFrame["code"];

  constructor(readonly frame: ErrorFrame) {
    super(`${frame.code}: ${frame.message}`);
    this.name = "ParleyError";
    this.code = frame.code;
  }

  static of(code: ErrorFrame["code"], message: string, ref: string | null = null): ParleyError {
    return new ParleyError({ type: "error", code, message, ref });
  }
}
