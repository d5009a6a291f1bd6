// Media (docs/media.md): an upload is a grant, then the file posted straight to S3 with the grant's form; a download is a grant.
import { ParleyError } from "./errors.js";
import type { Content, ConversationId } from "./frames.generated.js";
import type { Requests } from "./requests.js";

/** Uploads a file for a conversation; resolves with the content of a message naming it. S3's refusal or the server's rejects. */
export async function uploadMedia(requests: Requests, conversationId: ConversationId, file: Blob, caption?: string): Promise<Content> {
  const contentType = file.type || "application/octet-stream";
  const grant = await requests.request({ type: "media.upload", content_type: contentType, size: file.size, conversation_id: conversationId },
    "media.upload_grant");
  const form = new FormData();
  Object.entries(grant.fields).forEach(([name, value]) => form.append(name, value));
  form.append("file", file);
  const answer = await fetch(grant.url, { method: "POST", body: form });
  if (!answer.ok) {
    throw ParleyError.of("forbidden", `the upload was refused by storage: ${answer.status} ${(await answer.text()).slice(0, 300)}`, "media.upload");
  }
  const content: Content = { type: mediaType(contentType), media_id: grant.media_id, content_type: contentType, size: file.size };
  if (caption !== undefined) content.body = caption;
  return content;
}

/** Where a media object can be read now, and until when (epoch ms). */
export async function mediaUrl(requests: Requests, mediaId: string): Promise<{ url: string; expires_at: number }> {
  const grant = await requests.request({ type: "media.download", media_id: mediaId }, "media.download_grant");
  return { url: grant.url, expires_at: grant.expires_at };
}

/** A media message's type by the file's: image, video, audio, or file. */
function mediaType(contentType: string): Content["type"] {
  const kind = contentType.split("/")[0];
  return kind === "image" || kind === "video" || kind === "audio" ? kind : "file";
}
