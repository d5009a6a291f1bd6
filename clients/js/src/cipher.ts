import type { ConversationId, DeviceAddress, Envelope, KeysBundle, Message, UserId } from "./frames.generated.js";

/**
 * End-to-end encryption as the app provides it (docs/e2e.md): the client holds no cryptography of its own. It asks the
 * cipher to seal a message into one envelope per device, to take in the devices the server said a seal got wrong
 * (devices_changed), and to open this device's envelope of a message received. A Signal app implements it over libsignal
 * (in the browser, a WebAssembly build), keeping its sessions in its own store. The same contract as the Java client's
 * EndToEndCipher.
 */
export interface EndToEndCipher {
  /**
   * The plaintext sealed for the conversation: one envelope for every device with keys of every member but this device
   * (this user's other devices included), sessions built from keys it fetches through {@code keys}.
   */
  seal(conversationId: ConversationId, members: UserId[], plaintext: Uint8Array, keys: KeyDirectory): Promise<Envelope[]>;
  /** The server refused a seal: missing and stale devices need sessions from their keys as they are now; extra ones are gone. */
  devicesChanged(mismatch: DeviceMismatch, keys: KeyDirectory): Promise<void>;
  /** This device's plaintext of the message; undefined when it has no envelope for this device. Rejects when it does not decrypt. */
  open(message: Message): Promise<Uint8Array | undefined>;
}

/** What devices_changed names. */
export interface DeviceMismatch {
  missing: DeviceAddress[];
  extra: DeviceAddress[];
  stale: DeviceAddress[];
}

/** The key directory as the client reaches it for the cipher: keys.fetch. */
export interface KeyDirectory {
  fetch(user: UserId, device?: string): Promise<KeysBundle>;
}

/** Bytes as standard base64 (how envelopes and a pending sealed send's plaintext travel and are stored). */
export function toBase64(bytes: Uint8Array): string {
  let binary = "";
  for (let i = 0; i < bytes.length; i += 0x8000) binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(binary);
}

export function fromBase64(text: string): Uint8Array {
  const binary = atob(text);
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  return bytes;
}
