// @parley/client 0.4.0, the browser bundle: built from clients/js by 'npm run bundle'; do not edit.

// src/connection.ts
var STABLE_AFTER_MS = 1e4;
function jitteredDelay(minMs, maxMs, attempt, random = Math.random) {
  const ceiling = Math.min(maxMs, minMs * 2 ** Math.min(attempt, 20));
  return Math.floor(ceiling / 2 + random() * (ceiling / 2 + 1));
}
var Connection = class {
  constructor(settings, timers, changed) {
    this.settings = settings;
    this.timers = timers;
    this.changed = changed;
  }
  settings;
  timers;
  changed;
  socket;
  /** Which connection the socket's events are about: a late event of an old one is dropped. */
  number = 0;
  current = "offline";
  failedAttempts = 0;
  onlineSince = -1;
  lastFrameAt = 0;
  lastPingAt = 0;
  pendingRetry;
  events;
  bind(events) {
    this.events = events;
  }
  get state() {
    return this.current;
  }
  get open() {
    return this.socket !== void 0;
  }
  send(frame) {
    this.socket?.send(typeof frame === "string" ? frame : JSON.stringify(frame));
  }
  start() {
    void this.connect("started");
  }
  /** Caught up: online. */
  synced() {
    if (this.current !== "syncing") return false;
    this.onlineSince = Date.now();
    this.setState("online", "synced");
    return true;
  }
  /** Drops the connection and connects again at once (the app knows the network changed). */
  reconnect() {
    if (this.current === "closed") return;
    const socket = this.socket;
    this.failedAttempts = 0;
    this.disconnected(this.number, "connection_lost", "the app asked to reconnect", 0);
    socket?.close(1e3, "reconnecting");
  }
  /** Offline and the network is back: try now, not at the backoff's end. */
  wakeUp() {
    if (this.current !== "offline") return;
    this.timers.cancel(this.pendingRetry);
    void this.connect("reconnect_requested");
  }
  /** Every tick: a ping when the connection has been quiet, and the end of one that has not answered even that. */
  heartbeat(now) {
    if (this.socket === void 0) return;
    if (now - this.lastFrameAt > this.settings.pingIntervalMs * 2) {
      const dead = this.socket;
      this.disconnected(this.number, "heartbeat_timeout", `no answer for ${now - this.lastFrameAt} ms`);
      dead.close();
    } else if (now - this.lastPingAt > this.settings.pingIntervalMs) {
      this.lastPingAt = now;
      this.send({ type: "ping" });
    }
  }
  close() {
    if (this.current === "closed") return;
    this.setState("closed", "closed");
    this.socket?.close(1e3, "closed by the app");
    this.socket = void 0;
  }
  async connect(reason) {
    if (this.current === "closed") return;
    this.pendingRetry = void 0;
    this.setState("connecting", reason);
    const number = ++this.number;
    let token;
    try {
      token = await this.settings.token();
      if (typeof token !== "string" || token.length === 0) throw new Error("the token callback gave no token");
    } catch (error) {
      this.disconnected(number, "connect_failed", `no token: ${error.message}`);
      return;
    }
    if (number !== this.number || this.current === "closed") return;
    let socket;
    const url = this.settings.url;
    try {
      socket = this.settings.webSocket(`${url}${url.includes("?") ? "&" : "?"}token=${encodeURIComponent(token)}`);
    } catch (error) {
      this.disconnected(number, "connect_failed", `could not connect: ${error.message}`);
      return;
    }
    const opening = this.timers.later(() => {
      if (number === this.number && this.socket !== socket) {
        socket.close();
        this.disconnected(number, "connect_failed", `not open after ${this.settings.connectTimeoutMs} ms`);
      }
    }, this.settings.connectTimeoutMs);
    let opened = false;
    socket.onopen = () => {
      this.timers.cancel(opening);
      opened = true;
      if (number !== this.number || this.current === "closed") {
        socket.close();
        return;
      }
      this.socket = socket;
      this.lastFrameAt = Date.now();
      this.lastPingAt = Date.now();
      this.setState("syncing", "connected");
      this.events?.opened();
    };
    socket.onmessage = (event) => {
      if (number !== this.number) return;
      this.lastFrameAt = Date.now();
      this.events?.text(typeof event.data === "string" ? event.data : String(event.data));
    };
    socket.onclose = (event) => {
      this.timers.cancel(opening);
      const why = `closed (${event.code}${event.reason ? `: ${event.reason}` : ""})`;
      const reason2 = !opened ? /40[13]/.test(`${event.code} ${event.reason}`) ? "unauthorized" : "connect_failed" : event.code === 1006 ? "connection_lost" : "server_closed";
      this.disconnected(number, reason2, why);
    };
    socket.onerror = () => {
    };
  }
  disconnected(number, reason, why, delayMs) {
    if (number !== this.number || this.current === "closed") return;
    this.socket = void 0;
    this.number++;
    if (this.onlineSince >= 0 && Date.now() - this.onlineSince >= STABLE_AFTER_MS) this.failedAttempts = 0;
    this.onlineSince = -1;
    this.events?.lost(why);
    const wait = delayMs ?? jitteredDelay(this.settings.backoff.minMs, this.settings.backoff.maxMs, this.failedAttempts++);
    this.setState("offline", reason, wait, why);
    this.pendingRetry = this.timers.later(() => void this.connect("retrying"), wait);
  }
  setState(next, reason, retryInMs = null, detail) {
    const previous = this.current;
    if (previous === next) return;
    this.current = next;
    const change = { state: next, previous, reason, retry_in_ms: next === "offline" ? retryInMs : null };
    if (detail !== void 0) change.detail = detail;
    this.changed(change);
  }
};

// src/events.ts
var Emitter = class {
  listeners = /* @__PURE__ */ new Map();
  on(event, listener) {
    const set = this.listeners.get(event) ?? /* @__PURE__ */ new Set();
    set.add(listener);
    this.listeners.set(event, set);
    return () => set.delete(listener);
  }
  emit(event, value) {
    for (const listener of this.listeners.get(event) ?? []) {
      try {
        listener(value);
      } catch (appFailure) {
        console.warn(`a Parley '${event}' listener threw`, appFailure);
      }
    }
  }
};

// src/groups.ts
var Groups = class {
  constructor(requests) {
    this.requests = requests;
  }
  requests;
  /** Name, description, avatar and settings (a direct conversation: settings.disappearing_seconds only). */
  update(conversationId, changes) {
    return this.conversation({ type: "conversation.update", conversation_id: conversationId, ...changes });
  }
  /** admin or member (an admin's choice), or owner to exactly one member (the owner's: they stay an admin). */
  setRole(conversationId, userIds, role) {
    return this.conversation({ type: "conversation.members.role", conversation_id: conversationId, user_ids: userIds, role });
  }
  /** Leaves the group; an owner who leaves hands ownership to the longest-serving admin, else member. */
  leave(conversationId) {
    return this.conversation({ type: "conversation.leave", conversation_id: conversationId });
  }
  ban(conversationId, userIds) {
    return this.conversation({ type: "conversation.members.ban", conversation_id: conversationId, user_ids: userIds });
  }
  unban(conversationId, userIds) {
    return this.conversation({ type: "conversation.members.unban", conversation_id: conversationId, user_ids: userIds });
  }
  /** An invite link's code (shown this once), running at most 7 days and admitting at most 1,000 joins. */
  createInvite(conversationId, options = {}) {
    return this.requests.request({
      type: "conversation.invite.create",
      conversation_id: conversationId,
      ...options.expiresInSeconds === void 0 ? {} : { expires_in_seconds: options.expiresInSeconds },
      ...options.maxUses === void 0 ? {} : { max_uses: options.maxUses }
    }, "conversation.invite");
  }
  revokeInvite(code) {
    return this.requests.request({ type: "conversation.invite.revoke", code }, "conversation.invite.revoked");
  }
  /** Joins the group a code is for; a wrong, revoked, run-out or used-up code rejects as one not_found. */
  join(code) {
    return this.conversation({ type: "conversation.join", code });
  }
  async conversation(frame) {
    return (await this.requests.request(frame, "conversation.updated")).conversation;
  }
};

// src/errors.ts
var ParleyError = class _ParleyError extends Error {
  constructor(frame) {
    super(`${frame.code}: ${frame.message}`);
    this.frame = frame;
    this.name = "ParleyError";
    this.code = frame.code;
  }
  frame;
  code;
  static of(code, message, ref = null) {
    return new _ParleyError({ type: "error", code, message, ref });
  }
};

// src/media.ts
async function uploadMedia(requests, conversationId, file, caption) {
  const contentType = file.type || "application/octet-stream";
  const grant = await requests.request(
    { type: "media.upload", content_type: contentType, size: file.size, conversation_id: conversationId },
    "media.upload_grant"
  );
  const form = new FormData();
  Object.entries(grant.fields).forEach(([name, value]) => form.append(name, value));
  form.append("file", file);
  const answer = await fetch(grant.url, { method: "POST", body: form });
  if (!answer.ok) {
    throw ParleyError.of("forbidden", `the upload was refused by storage: ${answer.status} ${(await answer.text()).slice(0, 300)}`, "media.upload");
  }
  const content = { type: mediaType(contentType), media_id: grant.media_id, content_type: contentType, size: file.size };
  if (caption !== void 0) content.body = caption;
  return content;
}
async function mediaUrl(requests, mediaId) {
  const grant = await requests.request({ type: "media.download", media_id: mediaId }, "media.download_grant");
  return { url: grant.url, expires_at: grant.expires_at };
}
function mediaType(contentType) {
  const kind = contentType.split("/")[0];
  return kind === "image" || kind === "video" || kind === "audio" ? kind : "file";
}

// src/frames.generated.ts
var CLIENT_FRAME_DEFS = {
  "message.send": "MessageSend",
  "message.edit": "MessageEdit",
  "message.delete": "MessageDelete",
  "reaction.set": "ReactionSet",
  "message.pin": "MessagePin",
  "message.delivered": "MessageDelivered",
  "message.read": "MessageRead",
  "sync.request": "SyncRequest",
  "history.request": "HistoryRequest",
  "conversation.create": "ConversationCreate",
  "conversation.members.add": "ConversationMembersAdd",
  "conversation.members.remove": "ConversationMembersRemove",
  "conversation.update": "ConversationUpdate",
  "conversation.members.role": "ConversationMembersRole",
  "conversation.leave": "ConversationLeave",
  "conversation.members.ban": "ConversationMembersBan",
  "conversation.members.unban": "ConversationMembersUnban",
  "conversation.invite.create": "ConversationInviteCreate",
  "conversation.invite.revoke": "ConversationInviteRevoke",
  "conversation.join": "ConversationJoin",
  "conversation.list": "ConversationList",
  "typing": "Typing",
  "presence.query": "PresenceQuery",
  "presence.subscribe": "PresenceSubscribe",
  "settings.update": "SettingsUpdate",
  "device.register": "DeviceRegister",
  "device.unregister": "DeviceUnregister",
  "conversation.mute": "ConversationMute",
  "topic.mute": "TopicMute",
  "inbox.list": "InboxList",
  "inbox.mark": "InboxMarkRequest",
  "notification.ack": "NotificationAck",
  "keys.upload": "KeysUpload",
  "keys.count": "KeysCount",
  "keys.fetch": "KeysFetch",
  "media.upload": "MediaUpload",
  "media.download": "MediaDownload",
  "ping": "Ping"
};
var SERVER_FRAME_DEFS = {
  "message.ack": "MessageAck",
  "reaction.ack": "ReactionAck",
  "message.receive": "MessageReceive",
  "receipt.update": "ReceiptUpdate",
  "reactions.update": "ReactionsUpdate",
  "sync.batch": "SyncBatch",
  "sync.done": "SyncDone",
  "history.batch": "HistoryBatch",
  "conversation.created": "ConversationCreated",
  "conversation.updated": "ConversationUpdated",
  "conversation.invite": "ConversationInvite",
  "conversation.invite.revoked": "ConversationInviteRevoked",
  "conversation.page": "ConversationPage",
  "typing.update": "TypingUpdate",
  "presence.batch": "PresenceBatch",
  "notification.receive": "NotificationReceive",
  "inbox.page": "InboxPage",
  "inbox.counts": "InboxCounts",
  "settings.updated": "SettingsUpdated",
  "presence.update": "PresenceUpdate",
  "device.registered": "DeviceRegistered",
  "device.unregistered": "DeviceUnregistered",
  "topic.muted": "TopicMuted",
  "conversation.muted": "ConversationMuted",
  "keys.uploaded": "KeysUploaded",
  "keys.counts": "KeysCounts",
  "keys.bundle": "KeysBundle",
  "media.upload_grant": "MediaUploadGrant",
  "media.download_grant": "MediaDownloadGrant",
  "identity.changed": "IdentityChanged",
  "keys.low": "KeysLow",
  "pong": "Pong",
  "error": "ErrorFrame"
};
var LIMITS = {
  "max_frame_bytes": 131072,
  "max_page": 100,
  "max_presence_users": 100,
  "max_presence_ttl_seconds": 300
};
var FRAME_SCHEMA_DEFS = { "UserId": { "type": "string" }, "DeviceId": { "type": "string" }, "ConversationId": { "type": "string" }, "ClientMessageId": { "type": "string" }, "RequestId": { "type": "string" }, "RequestRef": { "type": "string", "pattern": "^[A-Za-z0-9._:-]{1,64}$" }, "AnswerRef": { "type": ["string", "null"] }, "NotificationId": { "type": "string" }, "MediaId": { "type": "string" }, "TopicKey": { "type": "string" }, "ContentType": { "enum": ["text", "image", "video", "audio", "file", "ciphertext", "void", "deleted"] }, "ConversationKind": { "enum": ["direct", "group"] }, "AckStatus": { "enum": ["sent", "duplicate"] }, "TypingState": { "enum": ["start", "stop"] }, "PresenceStatus": { "enum": ["online", "offline", "hidden"] }, "LastSeenVisibility": { "enum": ["everyone", "contacts", "nobody"] }, "PushPlatform": { "enum": ["fcm", "apns"] }, "InboxFilter": { "enum": ["all", "unread", "unseen", "archived"] }, "InboxMark": { "enum": ["seen", "read", "unread", "archived"] }, "NotificationState": { "enum": ["unseen", "seen", "read", "archived"] }, "ErrorCode": { "enum": ["bad_request", "unauthorized", "forbidden", "not_found", "too_large", "rate_limited", "conflict", "devices_changed", "window_closed", "internal"] }, "EnvelopeKind": { "enum": ["prekey", "message"] }, "RelationKind": { "enum": ["edit", "delete", "reaction"] }, "DeviceAddress": { "type": "object", "properties": { "user_id": { "$ref": "#/$defs/UserId" }, "device_id": { "$ref": "#/$defs/DeviceId" } }, "required": ["user_id", "device_id"], "additionalProperties": false }, "Envelope": { "type": "object", "properties": { "user_id": { "$ref": "#/$defs/UserId" }, "device_id": { "$ref": "#/$defs/DeviceId" }, "registration_id": { "type": "integer" }, "kind": { "$ref": "#/$defs/EnvelopeKind" }, "body": { "type": "string" } }, "required": ["user_id", "device_id", "registration_id", "kind", "body"], "additionalProperties": false }, "Content": { "type": "object", "properties": { "type": { "$ref": "#/$defs/ContentType" }, "body": { "type": "string" }, "media_url": { "type": "string" }, "media_id": { "$ref": "#/$defs/MediaId" }, "content_type": { "type": "string" }, "size": { "type": "integer" }, "envelopes": { "type": "array", "items": { "$ref": "#/$defs/Envelope" } } }, "required": ["type"], "additionalProperties": false }, "Relation": { "type": "object", "properties": { "kind": { "$ref": "#/$defs/RelationKind" }, "seq": { "type": "integer" } }, "required": ["kind", "seq"], "additionalProperties": false }, "Mentions": { "type": "array", "items": { "type": "string" } }, "Emoji": { "type": "string" }, "ReactionCount": { "type": "object", "properties": { "emoji": { "$ref": "#/$defs/Emoji" }, "count": { "type": "integer" }, "users": { "type": "array", "items": { "$ref": "#/$defs/UserId" } } }, "required": ["emoji", "count", "users"], "additionalProperties": false }, "Message": { "type": "object", "properties": { "id": { "$ref": "#/$defs/ClientMessageId" }, "conversation_id": { "$ref": "#/$defs/ConversationId" }, "seq": { "type": "integer" }, "sender_id": { "$ref": "#/$defs/UserId" }, "sender_device": { "$ref": "#/$defs/DeviceId" }, "content": { "$ref": "#/$defs/Content" }, "server_timestamp": { "type": "integer" }, "relates_to": { "$ref": "#/$defs/Relation" }, "reply_to": { "type": ["integer", "null"] }, "mentions": { "$ref": "#/$defs/Mentions" }, "edited_at": { "type": ["integer", "null"] }, "reactions": { "type": "array", "items": { "$ref": "#/$defs/ReactionCount" } } }, "required": ["id", "conversation_id", "seq", "sender_id", "sender_device", "content", "server_timestamp"], "additionalProperties": false }, "ConversationRole": { "enum": ["owner", "admin", "member"] }, "Audience": { "enum": ["all", "admins"] }, "InviteCode": { "type": "string", "pattern": "^[A-Za-z0-9_-]{27}$" }, "ConversationSettings": { "type": "object", "properties": { "send": { "$ref": "#/$defs/Audience" }, "add_members": { "$ref": "#/$defs/Audience" }, "disappearing_seconds": { "type": ["integer", "null"] } }, "required": ["disappearing_seconds"], "additionalProperties": false }, "Conversation": { "type": "object", "properties": { "conversation_id": { "$ref": "#/$defs/ConversationId" }, "kind": { "$ref": "#/$defs/ConversationKind" }, "name": { "type": "string" }, "members": { "type": "array", "items": { "$ref": "#/$defs/UserId" } }, "admins": { "type": "array", "items": { "$ref": "#/$defs/UserId" } }, "pinned": { "type": "array", "items": { "type": "integer" } }, "owner": { "$ref": "#/$defs/UserId" }, "description": { "type": "string" }, "avatar_media_id": { "$ref": "#/$defs/MediaId" }, "settings": { "$ref": "#/$defs/ConversationSettings" }, "banned": { "type": "array", "items": { "$ref": "#/$defs/UserId" } } }, "required": ["conversation_id", "kind", "members", "admins", "pinned", "settings"], "additionalProperties": false }, "ConversationSummary": { "type": "object", "properties": { "conversation_id": { "$ref": "#/$defs/ConversationId" }, "kind": { "$ref": "#/$defs/ConversationKind" }, "name": { "type": "string" }, "member_count": { "type": "integer" }, "last_seq": { "type": "integer" }, "unread_count": { "type": "integer" }, "mention_count": { "type": "integer" } }, "required": ["conversation_id", "kind", "member_count", "last_seq", "unread_count", "mention_count"], "additionalProperties": false }, "Presence": { "type": "object", "properties": { "user_id": { "$ref": "#/$defs/UserId" }, "status": { "$ref": "#/$defs/PresenceStatus" }, "last_seen": { "type": ["integer", "null"] } }, "required": ["user_id", "status", "last_seen"], "additionalProperties": false }, "NotificationContent": { "type": "object", "properties": { "title": { "type": "string" }, "body": { "type": "string" }, "data": { "type": "object" } }, "required": ["title"], "additionalProperties": false }, "Notification": { "type": "object", "properties": { "notification_id": { "$ref": "#/$defs/NotificationId" }, "category": { "type": "string" }, "content": { "$ref": "#/$defs/NotificationContent" }, "group_key": { "type": ["string", "null"] }, "count": { "type": "integer" }, "actors": { "type": "array", "items": { "$ref": "#/$defs/UserId" } }, "created_at": { "type": "integer" }, "state": { "$ref": "#/$defs/NotificationState" }, "topic": { "anyOf": [{ "$ref": "#/$defs/TopicKey" }, { "type": "null" }] } }, "required": ["notification_id", "category", "content", "group_key", "count", "actors", "created_at", "state", "topic"], "additionalProperties": false }, "SignedPublicKey": { "type": "object", "properties": { "key_id": { "type": "integer" }, "public_key": { "type": "string" }, "signature": { "type": "string" } }, "required": ["key_id", "public_key", "signature"], "additionalProperties": false }, "OneTimePreKey": { "type": "object", "properties": { "key_id": { "type": "integer" }, "public_key": { "type": "string" }, "signature": { "type": "string" } }, "required": ["key_id", "public_key"], "additionalProperties": false }, "BundleDevice": { "type": "object", "properties": { "device_id": { "$ref": "#/$defs/DeviceId" }, "registration_id": { "type": "integer" }, "signed_pre_key": { "$ref": "#/$defs/SignedPublicKey" }, "pre_key": { "anyOf": [{ "$ref": "#/$defs/OneTimePreKey" }, { "type": "null" }] }, "pq_pre_key": { "$ref": "#/$defs/SignedPublicKey" }, "pq_last_resort": { "type": "boolean" } }, "required": ["device_id", "registration_id", "signed_pre_key", "pre_key", "pq_pre_key", "pq_last_resort"], "additionalProperties": false }, "MessageSend": { "type": "object", "properties": { "type": { "const": "message.send" }, "id": { "$ref": "#/$defs/ClientMessageId" }, "conversation_id": { "$ref": "#/$defs/ConversationId" }, "content": { "$ref": "#/$defs/Content" }, "timestamp": { "type": "integer" }, "attempt": { "type": "integer" }, "reply_to": { "type": "integer" }, "mentions": { "$ref": "#/$defs/Mentions" } }, "required": ["type", "id", "conversation_id", "content"], "additionalProperties": false }, "MessageEdit": { "type": "object", "properties": { "type": { "const": "message.edit" }, "id": { "$ref": "#/$defs/ClientMessageId" }, "conversation_id": { "$ref": "#/$defs/ConversationId" }, "target_seq": { "type": "integer" }, "content": { "$ref": "#/$defs/Content" }, "attempt": { "type": "integer" } }, "required": ["type", "id", "conversation_id", "target_seq", "content"], "additionalProperties": false }, "MessageDelete": { "type": "object", "properties": { "type": { "const": "message.delete" }, "id": { "$ref": "#/$defs/ClientMessageId" }, "conversation_id": { "$ref": "#/$defs/ConversationId" }, "target_seq": { "type": "integer" }, "attempt": { "type": "integer" } }, "required": ["type", "id", "conversation_id", "target_seq"], "additionalProperties": false }, "ReactionSet": { "type": "object", "properties": { "type": { "const": "reaction.set" }, "id": { "$ref": "#/$defs/RequestRef" }, "conversation_id": { "$ref": "#/$defs/ConversationId" }, "target_seq": { "type": "integer" }, "emoji": { "oneOf": [{ "$ref": "#/$defs/Emoji" }, { "type": "null" }] }, "ciphertext": { "$ref": "#/$defs/Content" } }, "required": ["type", "conversation_id", "target_seq", "emoji"], "additionalProperties": false }, "MessagePin": { "type": "object", "properties": { "type": { "const": "message.pin" }, "id": { "$ref": "#/$defs/RequestRef" }, "conversation_id": { "$ref": "#/$defs/ConversationId" }, "seq": { "type": "integer" }, "pinned": { "type": "boolean" } }, "required": ["type", "conversation_id", "seq", "pinned"], "additionalProperties": false }, "MessageDelivered": { "type": "object", "properties": { "type": { "const": "message.delivered" }, "id": { "$ref": "#/$defs/RequestRef" }, "conversation_id": { "$ref": "#/$defs/ConversationId" }, "seq": { "type": "integer" } }, "required": ["type", "conversation_id", "seq"], "additionalProperties": false }, "MessageRead": { "type": "object", "properties": { "type": { "const": "message.read" }, "id": { "$ref": "#/$defs/RequestRef" }, "conversation_id": { "$ref": "#/$defs/ConversationId" }, "seq": { "type": "integer" } }, "required": ["type", "conversation_id", "seq"], "additionalProperties": false }, "SyncRequest": { "type": "object", "properties": { "type": { "const": "sync.request" }, "id": { "$ref": "#/$defs/RequestRef" }, "state": { "type": "object", "additionalProperties": { "type": "integer" } }, "limit": { "type": "integer" }, "changes_since": { "type": "integer" } }, "required": ["type", "state"], "additionalProperties": false }, "HistoryRequest": { "type": "object", "properties": { "type": { "const": "history.request" }, "id": { "$ref": "#/$defs/RequestRef" }, "conversation_id": { "$ref": "#/$defs/ConversationId" }, "before_seq": { "type": "integer" }, "limit": { "type": "integer" } }, "required": ["type", "conversation_id"], "additionalProperties": false }, "ConversationCreate": { "type": "object", "properties": { "type": { "const": "conversation.create" }, "id": { "$ref": "#/$defs/RequestId" }, "kind": { "$ref": "#/$defs/ConversationKind" }, "members": { "type": "array", "items": { "$ref": "#/$defs/UserId" } }, "name": { "type": "string" } }, "required": ["type", "id", "kind", "members"], "additionalProperties": false }, "ConversationMembersAdd": { "type": "object", "properties": { "type": { "const": "conversation.members.add" }, "id": { "$ref": "#/$defs/RequestRef" }, "conversation_id": { "$ref": "#/$defs/ConversationId" }, "members": { "type": "array", "items": { "$ref": "#/$defs/UserId" } } }, "required": ["type", "conversation_id", "members"], "additionalProperties": false }, "ConversationMembersRemove": { "type": "object", "properties": { "type": { "const": "conversation.members.remove" }, "id": { "$ref": "#/$defs/RequestRef" }, "conversation_id": { "$ref": "#/$defs/ConversationId" }, "members": { "type": "array", "items": { "$ref": "#/$defs/UserId" } } }, "required": ["type", "conversation_id", "members"], "additionalProperties": false }, "ConversationSettingsChange": { "type": "object", "properties": { "send": { "$ref": "#/$defs/Audience" }, "add_members": { "$ref": "#/$defs/Audience" }, "disappearing_seconds": { "type": ["integer", "null"] } }, "additionalProperties": false }, "ConversationUpdate": { "type": "object", "properties": { "type": { "const": "conversation.update" }, "id": { "$ref": "#/$defs/RequestRef" }, "conversation_id": { "$ref": "#/$defs/ConversationId" }, "name": { "type": "string" }, "description": { "type": ["string", "null"] }, "avatar_media_id": { "anyOf": [{ "$ref": "#/$defs/MediaId" }, { "type": "null" }] }, "settings": { "$ref": "#/$defs/ConversationSettingsChange" } }, "required": ["type", "conversation_id"], "additionalProperties": false }, "ConversationMembersRole": { "type": "object", "properties": { "type": { "const": "conversation.members.role" }, "id": { "$ref": "#/$defs/RequestRef" }, "conversation_id": { "$ref": "#/$defs/ConversationId" }, "user_ids": { "type": "array", "items": { "$ref": "#/$defs/UserId" } }, "role": { "$ref": "#/$defs/ConversationRole" } }, "required": ["type", "conversation_id", "user_ids", "role"], "additionalProperties": false }, "ConversationLeave": { "type": "object", "properties": { "type": { "const": "conversation.leave" }, "id": { "$ref": "#/$defs/RequestRef" }, "conversation_id": { "$ref": "#/$defs/ConversationId" } }, "required": ["type", "conversation_id"], "additionalProperties": false }, "ConversationMembersBan": { "type": "object", "properties": { "type": { "const": "conversation.members.ban" }, "id": { "$ref": "#/$defs/RequestRef" }, "conversation_id": { "$ref": "#/$defs/ConversationId" }, "user_ids": { "type": "array", "items": { "$ref": "#/$defs/UserId" } } }, "required": ["type", "conversation_id", "user_ids"], "additionalProperties": false }, "ConversationMembersUnban": { "type": "object", "properties": { "type": { "const": "conversation.members.unban" }, "id": { "$ref": "#/$defs/RequestRef" }, "conversation_id": { "$ref": "#/$defs/ConversationId" }, "user_ids": { "type": "array", "items": { "$ref": "#/$defs/UserId" } } }, "required": ["type", "conversation_id", "user_ids"], "additionalProperties": false }, "ConversationInviteCreate": { "type": "object", "properties": { "type": { "const": "conversation.invite.create" }, "id": { "$ref": "#/$defs/RequestRef" }, "conversation_id": { "$ref": "#/$defs/ConversationId" }, "expires_in_seconds": { "type": "integer" }, "max_uses": { "type": "integer" } }, "required": ["type", "conversation_id"], "additionalProperties": false }, "ConversationInviteRevoke": { "type": "object", "properties": { "type": { "const": "conversation.invite.revoke" }, "id": { "$ref": "#/$defs/RequestRef" }, "code": { "$ref": "#/$defs/InviteCode" } }, "required": ["type", "code"], "additionalProperties": false }, "ConversationJoin": { "type": "object", "properties": { "type": { "const": "conversation.join" }, "id": { "$ref": "#/$defs/RequestRef" }, "code": { "$ref": "#/$defs/InviteCode" } }, "required": ["type", "code"], "additionalProperties": false }, "ConversationList": { "type": "object", "properties": { "type": { "const": "conversation.list" }, "id": { "$ref": "#/$defs/RequestRef" }, "cursor": { "type": "string" } }, "required": ["type"], "additionalProperties": false }, "Typing": { "type": "object", "properties": { "type": { "const": "typing" }, "id": { "$ref": "#/$defs/RequestRef" }, "conversation_id": { "$ref": "#/$defs/ConversationId" }, "state": { "$ref": "#/$defs/TypingState" } }, "required": ["type", "conversation_id", "state"], "additionalProperties": false }, "PresenceQuery": { "type": "object", "properties": { "type": { "const": "presence.query" }, "id": { "$ref": "#/$defs/RequestRef" }, "user_ids": { "type": "array", "items": { "$ref": "#/$defs/UserId" } } }, "required": ["type", "user_ids"], "additionalProperties": false }, "PresenceSubscribe": { "type": "object", "properties": { "type": { "const": "presence.subscribe" }, "id": { "$ref": "#/$defs/RequestRef" }, "user_ids": { "type": "array", "items": { "$ref": "#/$defs/UserId" } }, "ttl_seconds": { "type": "integer" } }, "required": ["type", "user_ids"], "additionalProperties": false }, "SettingsUpdate": { "type": "object", "properties": { "type": { "const": "settings.update" }, "id": { "$ref": "#/$defs/RequestRef" }, "last_seen_visibility": { "$ref": "#/$defs/LastSeenVisibility" }, "notification_push": { "type": "object", "additionalProperties": { "type": "boolean" } } }, "required": ["type"], "additionalProperties": false }, "DeviceRegister": { "type": "object", "properties": { "type": { "const": "device.register" }, "id": { "$ref": "#/$defs/RequestRef" }, "platform": { "$ref": "#/$defs/PushPlatform" }, "token": { "type": "string" } }, "required": ["type", "platform", "token"], "additionalProperties": false }, "DeviceUnregister": { "type": "object", "properties": { "type": { "const": "device.unregister" }, "id": { "$ref": "#/$defs/RequestRef" } }, "required": ["type"], "additionalProperties": false }, "ConversationMute": { "type": "object", "properties": { "type": { "const": "conversation.mute" }, "id": { "$ref": "#/$defs/RequestRef" }, "conversation_id": { "$ref": "#/$defs/ConversationId" }, "until": { "type": ["integer", "null"] } }, "required": ["type", "conversation_id"], "additionalProperties": false }, "TopicMute": { "type": "object", "properties": { "type": { "const": "topic.mute" }, "id": { "$ref": "#/$defs/RequestRef" }, "topic": { "$ref": "#/$defs/TopicKey" }, "muted": { "type": "boolean" } }, "required": ["type", "topic", "muted"], "additionalProperties": false }, "InboxList": { "type": "object", "properties": { "type": { "const": "inbox.list" }, "id": { "$ref": "#/$defs/RequestRef" }, "cursor": { "$ref": "#/$defs/NotificationId" }, "limit": { "type": "integer" }, "filter": { "$ref": "#/$defs/InboxFilter" } }, "required": ["type"], "additionalProperties": false }, "InboxMarkRequest": { "type": "object", "properties": { "type": { "const": "inbox.mark" }, "id": { "$ref": "#/$defs/RequestRef" }, "ids": { "type": "array", "items": { "$ref": "#/$defs/NotificationId" } }, "up_to": { "$ref": "#/$defs/NotificationId" }, "state": { "$ref": "#/$defs/InboxMark" } }, "required": ["type", "state"], "additionalProperties": false }, "NotificationAck": { "type": "object", "properties": { "type": { "const": "notification.ack" }, "id": { "$ref": "#/$defs/RequestRef" }, "ids": { "type": "array", "items": { "$ref": "#/$defs/NotificationId" } } }, "required": ["type", "ids"], "additionalProperties": false }, "KeysUpload": { "type": "object", "properties": { "type": { "const": "keys.upload" }, "id": { "$ref": "#/$defs/RequestRef" }, "identity_key": { "type": "string" }, "registration_id": { "type": "integer" }, "signed_pre_key": { "$ref": "#/$defs/SignedPublicKey" }, "pq_last_resort_key": { "$ref": "#/$defs/SignedPublicKey" }, "pre_keys": { "type": "array", "items": { "$ref": "#/$defs/OneTimePreKey" } }, "pq_pre_keys": { "type": "array", "items": { "$ref": "#/$defs/OneTimePreKey" } } }, "required": ["type", "identity_key", "registration_id", "signed_pre_key", "pq_last_resort_key"], "additionalProperties": false }, "KeysCount": { "type": "object", "properties": { "type": { "const": "keys.count" }, "id": { "$ref": "#/$defs/RequestRef" } }, "required": ["type"], "additionalProperties": false }, "KeysFetch": { "type": "object", "properties": { "type": { "const": "keys.fetch" }, "id": { "$ref": "#/$defs/RequestRef" }, "user_id": { "$ref": "#/$defs/UserId" }, "device_id": { "$ref": "#/$defs/DeviceId" } }, "required": ["type", "user_id"], "additionalProperties": false }, "MediaUpload": { "type": "object", "properties": { "type": { "const": "media.upload" }, "id": { "$ref": "#/$defs/RequestRef" }, "content_type": { "type": "string" }, "size": { "type": "integer" }, "conversation_id": { "$ref": "#/$defs/ConversationId" } }, "required": ["type", "content_type", "size"], "additionalProperties": false }, "MediaDownload": { "type": "object", "properties": { "type": { "const": "media.download" }, "id": { "$ref": "#/$defs/RequestRef" }, "media_id": { "$ref": "#/$defs/MediaId" } }, "required": ["type", "media_id"], "additionalProperties": false }, "Ping": { "type": "object", "properties": { "type": { "const": "ping" }, "id": { "$ref": "#/$defs/RequestRef" } }, "required": ["type"], "additionalProperties": false }, "MessageAck": { "type": "object", "properties": { "type": { "const": "message.ack" }, "id": { "$ref": "#/$defs/ClientMessageId" }, "conversation_id": { "$ref": "#/$defs/ConversationId" }, "seq": { "type": "integer" }, "server_timestamp": { "type": "integer" }, "status": { "$ref": "#/$defs/AckStatus" }, "ref": { "$ref": "#/$defs/AnswerRef" } }, "required": ["type", "id", "conversation_id", "seq", "server_timestamp", "status"], "additionalProperties": false }, "ReactionAck": { "type": "object", "properties": { "type": { "const": "reaction.ack" }, "conversation_id": { "$ref": "#/$defs/ConversationId" }, "target_seq": { "type": "integer" }, "emoji": { "oneOf": [{ "$ref": "#/$defs/Emoji" }, { "type": "null" }] }, "ref": { "$ref": "#/$defs/AnswerRef" } }, "required": ["type", "conversation_id", "target_seq", "emoji"], "additionalProperties": false }, "MessageReceive": { "type": "object", "properties": { "type": { "const": "message.receive" }, "id": { "$ref": "#/$defs/ClientMessageId" }, "conversation_id": { "$ref": "#/$defs/ConversationId" }, "seq": { "type": "integer" }, "sender_id": { "$ref": "#/$defs/UserId" }, "sender_device": { "$ref": "#/$defs/DeviceId" }, "content": { "$ref": "#/$defs/Content" }, "server_timestamp": { "type": "integer" }, "relates_to": { "$ref": "#/$defs/Relation" }, "reply_to": { "type": ["integer", "null"] }, "mentions": { "$ref": "#/$defs/Mentions" }, "edited_at": { "type": ["integer", "null"] }, "reactions": { "type": "array", "items": { "$ref": "#/$defs/ReactionCount" } } }, "required": ["type", "id", "conversation_id", "seq", "sender_id", "sender_device", "content", "server_timestamp"], "additionalProperties": false }, "ReceiptUpdate": { "type": "object", "properties": { "type": { "const": "receipt.update" }, "conversation_id": { "$ref": "#/$defs/ConversationId" }, "user_id": { "$ref": "#/$defs/UserId" }, "delivered_seq": { "type": "integer" }, "read_seq": { "type": "integer" }, "all_delivered_seq": { "type": "integer" }, "all_read_seq": { "type": "integer" } }, "required": ["type", "conversation_id", "user_id", "delivered_seq", "read_seq"], "additionalProperties": false }, "ReactionsUpdate": { "type": "object", "properties": { "type": { "const": "reactions.update" }, "conversation_id": { "$ref": "#/$defs/ConversationId" }, "seq": { "type": "integer" }, "reactions": { "type": "array", "items": { "$ref": "#/$defs/ReactionCount" } } }, "required": ["type", "conversation_id", "seq", "reactions"], "additionalProperties": false }, "SyncBatch": { "type": "object", "properties": { "type": { "const": "sync.batch" }, "conversation_id": { "$ref": "#/$defs/ConversationId" }, "after_seq": { "type": "integer" }, "messages": { "type": "array", "items": { "$ref": "#/$defs/Message" } }, "has_more": { "type": "boolean" }, "delivered_seq": { "type": "integer" }, "read_seq": { "type": "integer" }, "last_seq": { "type": "integer" }, "reactions_changed": { "type": "array", "items": { "$ref": "#/$defs/MessageReactions" } }, "ref": { "$ref": "#/$defs/AnswerRef" } }, "required": ["type", "conversation_id", "after_seq", "messages", "has_more", "delivered_seq", "read_seq", "last_seq"], "additionalProperties": false }, "MessageReactions": { "type": "object", "properties": { "seq": { "type": "integer" }, "reactions": { "type": "array", "items": { "$ref": "#/$defs/ReactionCount" } } }, "required": ["seq", "reactions"], "additionalProperties": false }, "SyncDone": { "type": "object", "properties": { "type": { "const": "sync.done" }, "ref": { "$ref": "#/$defs/AnswerRef" }, "changes_at": { "type": "integer" }, "reaction_pages": { "type": "integer" } }, "required": ["type", "changes_at"], "additionalProperties": false }, "HistoryBatch": { "type": "object", "properties": { "type": { "const": "history.batch" }, "conversation_id": { "$ref": "#/$defs/ConversationId" }, "messages": { "type": "array", "items": { "$ref": "#/$defs/Message" } }, "next_before_seq": { "type": ["integer", "null"] }, "ref": { "$ref": "#/$defs/AnswerRef" } }, "required": ["type", "conversation_id", "messages", "next_before_seq"], "additionalProperties": false }, "ConversationCreated": { "type": "object", "properties": { "type": { "const": "conversation.created" }, "id": { "$ref": "#/$defs/RequestId" }, "conversation": { "$ref": "#/$defs/Conversation" }, "ref": { "$ref": "#/$defs/AnswerRef" } }, "required": ["type", "id", "conversation"], "additionalProperties": false }, "ConversationUpdated": { "type": "object", "properties": { "type": { "const": "conversation.updated" }, "conversation": { "$ref": "#/$defs/Conversation" }, "ref": { "$ref": "#/$defs/AnswerRef" } }, "required": ["type", "conversation"], "additionalProperties": false }, "ConversationInvite": { "type": "object", "properties": { "type": { "const": "conversation.invite" }, "conversation_id": { "$ref": "#/$defs/ConversationId" }, "code": { "$ref": "#/$defs/InviteCode" }, "expires_at": { "type": "integer" }, "max_uses": { "type": "integer" }, "ref": { "$ref": "#/$defs/AnswerRef" } }, "required": ["type", "conversation_id", "code", "expires_at", "max_uses"], "additionalProperties": false }, "ConversationInviteRevoked": { "type": "object", "properties": { "type": { "const": "conversation.invite.revoked" }, "code": { "$ref": "#/$defs/InviteCode" }, "ref": { "$ref": "#/$defs/AnswerRef" } }, "required": ["type", "code"], "additionalProperties": false }, "ConversationPage": { "type": "object", "properties": { "type": { "const": "conversation.page" }, "conversations": { "type": "array", "items": { "$ref": "#/$defs/ConversationSummary" } }, "next_cursor": { "type": ["string", "null"] }, "ref": { "$ref": "#/$defs/AnswerRef" } }, "required": ["type", "conversations", "next_cursor"], "additionalProperties": false }, "TypingUpdate": { "type": "object", "properties": { "type": { "const": "typing.update" }, "conversation_id": { "$ref": "#/$defs/ConversationId" }, "user_id": { "$ref": "#/$defs/UserId" }, "state": { "$ref": "#/$defs/TypingState" }, "expires_in_ms": { "type": "integer" } }, "required": ["type", "conversation_id", "user_id", "state", "expires_in_ms"], "additionalProperties": false }, "PresenceBatch": { "type": "object", "properties": { "type": { "const": "presence.batch" }, "users": { "type": "array", "items": { "$ref": "#/$defs/Presence" } }, "ref": { "$ref": "#/$defs/AnswerRef" } }, "required": ["type", "users"], "additionalProperties": false }, "NotificationReceive": { "type": "object", "properties": { "type": { "const": "notification.receive" }, "notification_id": { "$ref": "#/$defs/NotificationId" }, "category": { "type": "string" }, "content": { "$ref": "#/$defs/NotificationContent" }, "group_key": { "type": ["string", "null"] }, "count": { "type": "integer" }, "actors": { "type": "array", "items": { "$ref": "#/$defs/UserId" } }, "created_at": { "type": "integer" }, "state": { "$ref": "#/$defs/NotificationState" }, "topic": { "anyOf": [{ "$ref": "#/$defs/TopicKey" }, { "type": "null" }] } }, "required": ["type", "notification_id", "category", "content", "group_key", "count", "actors", "created_at", "state", "topic"], "additionalProperties": false }, "InboxPage": { "type": "object", "properties": { "type": { "const": "inbox.page" }, "notifications": { "type": "array", "items": { "$ref": "#/$defs/Notification" } }, "next_cursor": { "anyOf": [{ "$ref": "#/$defs/NotificationId" }, { "type": "null" }] }, "unread_count": { "type": "integer" }, "unseen_count": { "type": "integer" }, "ref": { "$ref": "#/$defs/AnswerRef" } }, "required": ["type", "notifications", "next_cursor", "unread_count", "unseen_count"], "additionalProperties": false }, "InboxCounts": { "type": "object", "properties": { "type": { "const": "inbox.counts" }, "unread_count": { "type": "integer" }, "unseen_count": { "type": "integer" }, "ref": { "$ref": "#/$defs/AnswerRef" } }, "required": ["type", "unread_count", "unseen_count"], "additionalProperties": false }, "SettingsUpdated": { "type": "object", "properties": { "type": { "const": "settings.updated" }, "last_seen_visibility": { "$ref": "#/$defs/LastSeenVisibility" }, "notification_push": { "type": "object", "additionalProperties": { "type": "boolean" } }, "ref": { "$ref": "#/$defs/AnswerRef" } }, "required": ["type"], "additionalProperties": false }, "PresenceUpdate": { "type": "object", "properties": { "type": { "const": "presence.update" }, "user_id": { "$ref": "#/$defs/UserId" }, "status": { "$ref": "#/$defs/PresenceStatus" }, "last_seen": { "type": ["integer", "null"] } }, "required": ["type", "user_id", "status", "last_seen"], "additionalProperties": false }, "DeviceRegistered": { "type": "object", "properties": { "type": { "const": "device.registered" }, "platform": { "$ref": "#/$defs/PushPlatform" }, "ref": { "$ref": "#/$defs/AnswerRef" } }, "required": ["type", "platform"], "additionalProperties": false }, "DeviceUnregistered": { "type": "object", "properties": { "type": { "const": "device.unregistered" }, "ref": { "$ref": "#/$defs/AnswerRef" } }, "required": ["type"], "additionalProperties": false }, "TopicMuted": { "type": "object", "properties": { "type": { "const": "topic.muted" }, "topic": { "$ref": "#/$defs/TopicKey" }, "muted": { "type": "boolean" }, "ref": { "$ref": "#/$defs/AnswerRef" } }, "required": ["type", "topic", "muted"], "additionalProperties": false }, "ConversationMuted": { "type": "object", "properties": { "type": { "const": "conversation.muted" }, "conversation_id": { "$ref": "#/$defs/ConversationId" }, "until": { "type": ["integer", "null"] }, "ref": { "$ref": "#/$defs/AnswerRef" } }, "required": ["type", "conversation_id", "until"], "additionalProperties": false }, "KeysUploaded": { "type": "object", "properties": { "type": { "const": "keys.uploaded" }, "pre_key_count": { "type": "integer" }, "pq_pre_key_count": { "type": "integer" }, "ref": { "$ref": "#/$defs/AnswerRef" } }, "required": ["type", "pre_key_count", "pq_pre_key_count"], "additionalProperties": false }, "KeysCounts": { "type": "object", "properties": { "type": { "const": "keys.counts" }, "pre_key_count": { "type": "integer" }, "pq_pre_key_count": { "type": "integer" }, "ref": { "$ref": "#/$defs/AnswerRef" } }, "required": ["type", "pre_key_count", "pq_pre_key_count"], "additionalProperties": false }, "KeysBundle": { "type": "object", "properties": { "type": { "const": "keys.bundle" }, "user_id": { "$ref": "#/$defs/UserId" }, "identity_key": { "type": "string" }, "devices": { "type": "array", "items": { "$ref": "#/$defs/BundleDevice" } }, "ref": { "$ref": "#/$defs/AnswerRef" } }, "required": ["type", "user_id", "identity_key", "devices"], "additionalProperties": false }, "MediaUploadGrant": { "type": "object", "properties": { "type": { "const": "media.upload_grant" }, "media_id": { "$ref": "#/$defs/MediaId" }, "url": { "type": "string" }, "fields": { "type": "object", "additionalProperties": { "type": "string" } }, "expires_at": { "type": "integer" }, "max_size": { "type": "integer" }, "ref": { "$ref": "#/$defs/AnswerRef" } }, "required": ["type", "media_id", "url", "fields", "expires_at", "max_size"], "additionalProperties": false }, "MediaDownloadGrant": { "type": "object", "properties": { "type": { "const": "media.download_grant" }, "media_id": { "$ref": "#/$defs/MediaId" }, "url": { "type": "string" }, "expires_at": { "type": "integer" }, "ref": { "$ref": "#/$defs/AnswerRef" } }, "required": ["type", "media_id", "url", "expires_at"], "additionalProperties": false }, "IdentityChanged": { "type": "object", "properties": { "type": { "const": "identity.changed" }, "user_id": { "$ref": "#/$defs/UserId" } }, "required": ["type", "user_id"], "additionalProperties": false }, "KeysLow": { "type": "object", "properties": { "type": { "const": "keys.low" }, "pre_key_count": { "type": "integer" }, "pq_pre_key_count": { "type": "integer" } }, "required": ["type", "pre_key_count", "pq_pre_key_count"], "additionalProperties": false }, "Pong": { "type": "object", "properties": { "type": { "const": "pong" }, "ref": { "$ref": "#/$defs/AnswerRef" } }, "required": ["type"], "additionalProperties": false }, "ErrorFrame": { "type": "object", "properties": { "type": { "const": "error" }, "code": { "$ref": "#/$defs/ErrorCode" }, "message": { "type": "string" }, "ref": { "type": ["string", "null"] }, "retry_after_ms": { "type": "integer" }, "missing": { "type": "array", "items": { "$ref": "#/$defs/DeviceAddress" } }, "extra": { "type": "array", "items": { "$ref": "#/$defs/DeviceAddress" } }, "stale": { "type": "array", "items": { "$ref": "#/$defs/DeviceAddress" } } }, "required": ["type", "code", "message", "ref"], "additionalProperties": false }, "ClientFrame": { "oneOf": [{ "$ref": "#/$defs/MessageSend" }, { "$ref": "#/$defs/MessageEdit" }, { "$ref": "#/$defs/MessageDelete" }, { "$ref": "#/$defs/ReactionSet" }, { "$ref": "#/$defs/MessagePin" }, { "$ref": "#/$defs/MessageDelivered" }, { "$ref": "#/$defs/MessageRead" }, { "$ref": "#/$defs/SyncRequest" }, { "$ref": "#/$defs/HistoryRequest" }, { "$ref": "#/$defs/ConversationCreate" }, { "$ref": "#/$defs/ConversationMembersAdd" }, { "$ref": "#/$defs/ConversationMembersRemove" }, { "$ref": "#/$defs/ConversationUpdate" }, { "$ref": "#/$defs/ConversationMembersRole" }, { "$ref": "#/$defs/ConversationLeave" }, { "$ref": "#/$defs/ConversationMembersBan" }, { "$ref": "#/$defs/ConversationMembersUnban" }, { "$ref": "#/$defs/ConversationInviteCreate" }, { "$ref": "#/$defs/ConversationInviteRevoke" }, { "$ref": "#/$defs/ConversationJoin" }, { "$ref": "#/$defs/ConversationList" }, { "$ref": "#/$defs/Typing" }, { "$ref": "#/$defs/PresenceQuery" }, { "$ref": "#/$defs/PresenceSubscribe" }, { "$ref": "#/$defs/SettingsUpdate" }, { "$ref": "#/$defs/DeviceRegister" }, { "$ref": "#/$defs/DeviceUnregister" }, { "$ref": "#/$defs/ConversationMute" }, { "$ref": "#/$defs/TopicMute" }, { "$ref": "#/$defs/InboxList" }, { "$ref": "#/$defs/InboxMarkRequest" }, { "$ref": "#/$defs/NotificationAck" }, { "$ref": "#/$defs/KeysUpload" }, { "$ref": "#/$defs/KeysCount" }, { "$ref": "#/$defs/KeysFetch" }, { "$ref": "#/$defs/MediaUpload" }, { "$ref": "#/$defs/MediaDownload" }, { "$ref": "#/$defs/Ping" }] }, "ServerFrame": { "oneOf": [{ "$ref": "#/$defs/MessageAck" }, { "$ref": "#/$defs/ReactionAck" }, { "$ref": "#/$defs/MessageReceive" }, { "$ref": "#/$defs/ReceiptUpdate" }, { "$ref": "#/$defs/ReactionsUpdate" }, { "$ref": "#/$defs/SyncBatch" }, { "$ref": "#/$defs/SyncDone" }, { "$ref": "#/$defs/HistoryBatch" }, { "$ref": "#/$defs/ConversationCreated" }, { "$ref": "#/$defs/ConversationUpdated" }, { "$ref": "#/$defs/ConversationInvite" }, { "$ref": "#/$defs/ConversationInviteRevoked" }, { "$ref": "#/$defs/ConversationPage" }, { "$ref": "#/$defs/TypingUpdate" }, { "$ref": "#/$defs/PresenceBatch" }, { "$ref": "#/$defs/NotificationReceive" }, { "$ref": "#/$defs/InboxPage" }, { "$ref": "#/$defs/InboxCounts" }, { "$ref": "#/$defs/SettingsUpdated" }, { "$ref": "#/$defs/PresenceUpdate" }, { "$ref": "#/$defs/DeviceRegistered" }, { "$ref": "#/$defs/DeviceUnregistered" }, { "$ref": "#/$defs/TopicMuted" }, { "$ref": "#/$defs/ConversationMuted" }, { "$ref": "#/$defs/KeysUploaded" }, { "$ref": "#/$defs/KeysCounts" }, { "$ref": "#/$defs/KeysBundle" }, { "$ref": "#/$defs/MediaUploadGrant" }, { "$ref": "#/$defs/MediaDownloadGrant" }, { "$ref": "#/$defs/IdentityChanged" }, { "$ref": "#/$defs/KeysLow" }, { "$ref": "#/$defs/Pong" }, { "$ref": "#/$defs/ErrorFrame" }] } };

// src/store.ts
var MemoryClientStore = class {
  heldUpTo = /* @__PURE__ */ new Map();
  pending = [];
  changesAt;
  async load() {
    return {
      heldUpTo: Object.fromEntries(this.heldUpTo),
      pendingSends: this.pending.map((send) => ({ ...send })),
      ...this.changesAt === void 0 ? {} : { changesAt: this.changesAt }
    };
  }
  async setChangesAt(at) {
    this.changesAt = at;
  }
  async setHeldUpTo(conversation, seq) {
    this.heldUpTo.set(conversation, Math.max(seq, this.heldUpTo.get(conversation) ?? 0));
  }
  async addPendingSend(send) {
    if (!this.pending.some((held) => held.id === send.id)) this.pending.push({ ...send });
  }
  async removePendingSend(id) {
    const index = this.pending.findIndex((send) => send.id === id);
    if (index >= 0) this.pending.splice(index, 1);
  }
  async replacePendingSend(send) {
    const index = this.pending.findIndex((held) => held.id === send.id);
    if (index >= 0) this.pending[index] = { ...send };
  }
};
var StoreWrites = class {
  constructor(failed) {
    this.failed = failed;
  }
  failed;
  last = Promise.resolve();
  write(work) {
    const done2 = this.last.then(work);
    this.last = done2.catch((error) => this.failed(error));
    return done2;
  }
};

// src/transport.ts
function platformWebSocket() {
  const Platform = globalThis.WebSocket;
  if (Platform === void 0) {
    throw new Error("this platform has no global WebSocket (Node 20): pass webSocket: nodeWebSocket() from '@parley/client/node'");
  }
  return (url) => new Platform(url);
}
function isGatewayRefusal(text) {
  try {
    const frame = JSON.parse(text);
    return typeof frame === "object" && frame !== null && !Array.isArray(frame) && !("type" in frame) && typeof frame.message === "string";
  } catch {
    return false;
  }
}

// src/settings.ts
var PRESENCE_TTL_SECONDS = LIMITS.max_presence_ttl_seconds;
function settingsOf(options) {
  for (const field of ["url", "user", "device"]) {
    if (typeof options[field] !== "string" || options[field].length === 0) {
      throw new TypeError(`options.${field} must be a non-empty string`);
    }
  }
  if (typeof options.token !== "function") throw new TypeError("options.token must be a function that returns a token");
  const backoff = options.backoff ?? { minMs: 250, maxMs: 3e4 };
  if (!(backoff.minMs > 0 && backoff.maxMs >= backoff.minMs)) {
    throw new RangeError(`backoff must have 0 < minMs <= maxMs, was ${backoff.minMs} and ${backoff.maxMs}`);
  }
  const presenceRenewalMs = options.presenceRenewalMs ?? PRESENCE_TTL_SECONDS * 800;
  if (!(presenceRenewalMs > 0 && presenceRenewalMs < PRESENCE_TTL_SECONDS * 1e3)) {
    throw new RangeError(`presenceRenewalMs must be above 0 and under the subscription's ${PRESENCE_TTL_SECONDS} s, was ${presenceRenewalMs}`);
  }
  return {
    url: options.url,
    user: options.user,
    device: options.device,
    token: options.token,
    webSocket: options.webSocket ?? platformWebSocket(),
    store: options.store ?? new MemoryClientStore(),
    backoff,
    gapTimeoutMs: options.gapTimeoutMs ?? 2e3,
    pingIntervalMs: options.pingIntervalMs ?? 24e4,
    ackTimeoutMs: options.ackTimeoutMs ?? 1e4,
    requestTimeoutMs: options.requestTimeoutMs ?? 1e4,
    connectTimeoutMs: options.connectTimeoutMs ?? 15e3,
    presenceRenewalMs,
    cipher: options.cipher,
    keepProcessAlive: options.keepProcessAlive ?? true
  };
}

// src/presence.ts
var PresenceWatch = class {
  constructor(requests, renewalMs) {
    this.requests = requests;
    this.renewalMs = renewalMs;
  }
  requests;
  renewalMs;
  watched = /* @__PURE__ */ new Set();
  renewedAt = 0;
  async subscribe(users) {
    users.forEach((user) => this.watched.add(user));
    try {
      return await this.requests.request({ type: "presence.subscribe", user_ids: users, ttl_seconds: PRESENCE_TTL_SECONDS }, "presence.batch");
    } finally {
      this.renewedAt = Date.now();
    }
  }
  unsubscribe(users) {
    users.forEach((user) => this.watched.delete(user));
  }
  renewIfDue(now) {
    if (this.watched.size > 0 && now - this.renewedAt > this.renewalMs) this.renew();
  }
  /** The followed users' subscription again, a hundred to a frame (the server's bound); the answers become presence events. */
  renew() {
    if (this.watched.size === 0) return;
    this.renewedAt = Date.now();
    const users = [...this.watched];
    for (let from = 0; from < users.length; from += LIMITS.max_presence_users) {
      this.requests.ask(
        { type: "presence.subscribe", user_ids: users.slice(from, from + LIMITS.max_presence_users), ttl_seconds: PRESENCE_TTL_SECONDS },
        "presence.batch"
      ).catch(() => void 0);
    }
  }
};

// src/cipher.ts
function toBase64(bytes) {
  let binary = "";
  for (let i = 0; i < bytes.length; i += 32768) binary += String.fromCharCode(...bytes.subarray(i, i + 32768));
  return btoa(binary);
}
function fromBase64(text) {
  const binary = atob(text);
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  return bytes;
}

// src/ordering.ts
var OrderingBuffer = class {
  constructor(conversationId, released, gapTimeoutMs, capacity) {
    this.conversationId = conversationId;
    this.released = released;
    this.gapTimeoutMs = gapTimeoutMs;
    this.capacity = capacity;
    if (released < 0) throw new RangeError(`releasedUpTo must not be negative, was ${released}`);
    if (capacity < 1) throw new RangeError(`capacity must be at least 1, was ${capacity}`);
  }
  conversationId;
  released;
  gapTimeoutMs;
  capacity;
  held = /* @__PURE__ */ new Map();
  /** Reactions told for seqs not released whose message has not come: the live copy that comes carries them. */
  reactionsAhead = /* @__PURE__ */ new Map();
  gapOpenedAt;
  overflowed = false;
  /** The highest seq released: every seq up to it was released exactly once. */
  get releasedUpTo() {
    return this.released;
  }
  /** The lowest seq held behind the gap, if any. */
  get firstHeldSeq() {
    let lowest;
    for (const seq of this.held.keys()) if (lowest === void 0 || seq < lowest) lowest = seq;
    return lowest;
  }
  get heldCount() {
    return this.held.size;
  }
  /**
   * Takes one message; returns those now ready, in seq order. Duplicates are dropped, but a copy the server listed (`listed`:
   * a sync's or history's page) replaces a live copy held.
   */
  offer(offered, now, listed = false) {
    if (offered.conversation_id !== this.conversationId) {
      throw new Error(`message of conversation ${offered.conversation_id} offered to the buffer of ${this.conversationId}`);
    }
    const seq = offered.seq;
    if (seq <= this.released) return [];
    const toldAhead = this.reactionsAhead.get(seq);
    this.reactionsAhead.delete(seq);
    const message = listed || toldAhead === void 0 ? offered : withReactions(offered, toldAhead);
    if (this.held.has(seq)) {
      if (listed) this.held.set(seq, message);
      return [];
    }
    if (seq !== this.released + 1) {
      this.hold(message, now);
      return [];
    }
    const ready = [message];
    this.released = seq;
    for (let next = this.held.get(this.released + 1); next !== void 0; next = this.held.get(this.released + 1)) {
      this.held.delete(this.released + 1);
      ready.push(next);
      this.released++;
    }
    for (const ahead of this.reactionsAhead.keys()) if (ahead <= this.released) this.reactionsAhead.delete(ahead);
    this.gapOpenedAt = this.held.size === 0 ? void 0 : now;
    return ready;
  }
  offerAll(messages, now, listed = false) {
    return messages.flatMap((message) => this.offer(message, now, listed));
  }
  /** A message's reactions now: true when the app is to hear them (it has the message); false when kept with it for later. */
  reactionsChanged(seq, reactions) {
    if (seq <= this.released) return true;
    const waiting = this.held.get(seq);
    if (waiting !== void 0) {
      this.held.set(seq, withReactions(waiting, reactions));
    } else {
      this.reactionsAhead.set(seq, reactions);
      if (this.reactionsAhead.size > this.capacity) this.reactionsAhead.delete(Math.max(...this.reactionsAhead.keys()));
    }
    return false;
  }
  /** Whether to ask for what fills the gap now: once per timeout while it stays open, or at once after an overflow. */
  pollResync(now) {
    if (this.overflowed) {
      this.overflowed = false;
      this.gapOpenedAt = now;
      return true;
    }
    if (this.gapOpenedAt !== void 0 && now >= this.gapOpenedAt + this.gapTimeoutMs) {
      this.gapOpenedAt = now;
      return true;
    }
    return false;
  }
  hold(message, now) {
    if (this.held.size === 0) this.gapOpenedAt = now;
    this.held.set(message.seq, message);
    if (this.held.size > this.capacity) {
      let farthest = message.seq;
      for (const seq of this.held.keys()) if (seq > farthest) farthest = seq;
      this.held.delete(farthest);
      this.overflowed = true;
    }
  }
};
function counts(message) {
  return message.relates_to === void 0 && message.content.type !== "void" && message.content.type !== "deleted";
}
function withReactions(message, reactions) {
  return counts(message) ? { ...message, reactions } : message;
}
var CAPACITY = 1e3;
var Timelines = class {
  constructor(heldUpTo, gapTimeoutMs) {
    this.gapTimeoutMs = gapTimeoutMs;
    for (const [conversation, seq] of Object.entries(heldUpTo)) {
      this.buffers.set(conversation, new OrderingBuffer(conversation, seq, gapTimeoutMs, CAPACITY));
    }
  }
  gapTimeoutMs;
  buffers = /* @__PURE__ */ new Map();
  waitingForStart = /* @__PURE__ */ new Map();
  syncedNow = /* @__PURE__ */ new Set();
  /** What a sync asks for: every conversation this client knows, with the last seq it released. */
  state() {
    const state = {};
    for (const [conversation, buffer] of this.buffers) state[conversation] = buffer.releasedUpTo;
    return state;
  }
  get needsSync() {
    return this.waitingForStart.size > 0;
  }
  offer(message, now) {
    const buffer = this.buffers.get(message.conversation_id);
    if (buffer === void 0) {
      const waiting = this.waitingForStart.get(message.conversation_id) ?? [];
      waiting.push(message);
      this.waitingForStart.set(message.conversation_id, waiting);
      return [];
    }
    return buffer.offer(message, now);
  }
  syncStarted() {
    this.syncedNow.clear();
  }
  /** Live messages of a conversation the finished sync did not mention (left before it) wait for nothing any more. */
  syncDone() {
    for (const conversation of [...this.waitingForStart.keys()]) {
      if (!this.syncedNow.has(conversation)) this.waitingForStart.delete(conversation);
    }
  }
  /** Whether a sync told where the conversation starts (and the user has not left it since). */
  holds(conversation) {
    return this.buffers.has(conversation);
  }
  left(conversation) {
    this.buffers.delete(conversation);
    this.waitingForStart.delete(conversation);
  }
  /** A page of a sync; for a conversation new to this client, where it starts: where the page continues from. */
  synced(batch, now) {
    this.syncedNow.add(batch.conversation_id);
    let buffer = this.buffers.get(batch.conversation_id);
    if (buffer === void 0) {
      buffer = new OrderingBuffer(batch.conversation_id, batch.after_seq, this.gapTimeoutMs, CAPACITY);
      this.buffers.set(batch.conversation_id, buffer);
    }
    const ready = buffer.offerAll(batch.messages, now, true);
    const waited = this.waitingForStart.get(batch.conversation_id);
    if (waited !== void 0) {
      this.waitingForStart.delete(batch.conversation_id);
      ready.push(...buffer.offerAll(waited, now));
    }
    return ready;
  }
  /** A page of history (newest first on the wire): it fills a gap, or repeats what was released. */
  history(batch, now) {
    const buffer = this.buffers.get(batch.conversation_id);
    return buffer === void 0 ? [] : buffer.offerAll([...batch.messages].reverse(), now, true);
  }
  /** A message's reactions now (live, or a sync's catch-up): true when the app is to hear them, false when kept with it. */
  reactions(update) {
    return this.buffers.get(update.conversation_id)?.reactionsChanged(update.seq, update.reactions) ?? true;
  }
  /** The history requests that fill the gaps open longer than the timeout, from each gap's low end, a page at most. */
  gapsToFill(now) {
    const requests = [];
    for (const buffer of this.buffers.values()) {
      if (!buffer.pollResync(now)) continue;
      const before = Math.min(buffer.firstHeldSeq ?? Number.MAX_SAFE_INTEGER, buffer.releasedUpTo + LIMITS.max_page + 1);
      const missing = Math.min(LIMITS.max_page, before - buffer.releasedUpTo - 1);
      if (missing > 0) {
        requests.push({ type: "history.request", conversation_id: buffer.conversationId, before_seq: before, limit: missing });
      }
    }
    return requests;
  }
  releasedUpTo(conversation) {
    return this.buffers.get(conversation)?.releasedUpTo ?? 0;
  }
};

// src/receiving.ts
var SYNC_RETRY_MS = 1e4;
var Receiving = class {
  constructor(connection, requests, timers, events, store, writes, cipher, user, device, ownSend) {
    this.connection = connection;
    this.requests = requests;
    this.timers = timers;
    this.events = events;
    this.store = store;
    this.writes = writes;
    this.cipher = cipher;
    this.user = user;
    this.device = device;
    this.ownSend = ownSend;
  }
  connection;
  requests;
  timers;
  events;
  store;
  writes;
  cipher;
  user;
  device;
  ownSend;
  timelines;
  /** Messages handed to the app, one batch after another: opening envelopes is asynchronous, the order is not. */
  handing = Promise.resolve();
  /** The plaintexts of this device's acknowledged sealed sends, until the message is handed to the app. */
  ownPlaintexts = /* @__PURE__ */ new Map();
  /** This device's sealed entries handed to the app, with the pending send's plaintext, before their answer came. */
  handedBeforeAnswer = /* @__PURE__ */ new Set();
  deliveredSent = /* @__PURE__ */ new Map();
  readToSend = /* @__PURE__ */ new Map();
  syncAskedAt = 0;
  /** The sync a gateway refusal already scheduled asking again. */
  syncRetryFor = -1;
  /** The id of the sync in flight: its refusal is asked again; one for an older sync changes nothing. */
  syncId = "";
  /** The pages of reaction changes the sync in progress has brought. */
  reactionPages = 0;
  /** The last sync.done's changes_at: this sync asks for the reaction changes since. */
  changesAt;
  load(heldUpTo, gapTimeoutMs, changesAt) {
    this.timelines = new Timelines(heldUpTo, gapTimeoutMs);
    this.changesAt = changesAt;
  }
  sync() {
    if (this.timelines === void 0) return;
    this.timelines.syncStarted();
    this.syncAskedAt = Date.now();
    this.syncId = crypto.randomUUID();
    this.reactionPages = 0;
    this.connection.send({
      type: "sync.request",
      id: this.syncId,
      state: this.timelines.state(),
      limit: LIMITS.max_page,
      ...this.changesAt === void 0 ? {} : { changes_since: this.changesAt }
    });
  }
  /** The sync's refusal (busy or failing), when the error names it: asked again after the wait; until done the client syncs. */
  syncRefused(error) {
    if (error.ref !== this.syncId && error.ref !== "sync.request") return false;
    this.timers.later(() => {
      if (this.connection.state === "syncing" && this.connection.open) this.sync();
    }, error.retry_after_ms ?? 1e3);
    return true;
  }
  /** A gateway refusal may have been of the sync in flight: it is asked again after the wait; true when it will be. */
  resyncAfter(waitMs) {
    if (this.connection.state !== "syncing" || this.syncRetryFor === this.syncAskedAt) return false;
    const refused = this.syncAskedAt;
    this.syncRetryFor = refused;
    this.timers.later(() => {
      if (this.connection.state === "syncing" && this.connection.open && this.syncAskedAt === refused) this.sync();
    }, waitMs);
    return true;
  }
  /** Fewer reactions pages than the sync sent (a post lost): the old changes_since stays, and the sync is asked again at once. */
  synced(done2) {
    this.timelines?.syncDone();
    if (this.reactionPages < (done2.reaction_pages ?? 0)) {
      this.sync();
      return;
    }
    this.changesAt = done2.changes_at;
    void this.writes.write(() => this.store.setChangesAt(done2.changes_at));
  }
  /** Online: what the app read while offline is told; a conversation joined meanwhile is synced. */
  online() {
    this.flushReads();
    if (this.timelines?.needsSync) this.sync();
  }
  /** Every tick: a sync unanswered for long is asked again; online, gaps open past their timeout are filled. */
  tick(now) {
    if (this.timelines === void 0) return;
    if (this.connection.state === "syncing" && now - this.syncAskedAt > SYNC_RETRY_MS) this.sync();
    if (this.connection.state === "online") this.timelines.gapsToFill(now).forEach((request) => this.fillGap(request));
  }
  /** A frame that carries messages or changes a timeline. */
  take(frame) {
    const timelines = this.timelines;
    if (timelines === void 0) return;
    switch (frame.type) {
      case "message.receive": {
        const { type: _type, ...message } = frame;
        this.release(timelines.offer(message, Date.now()));
        break;
      }
      case "sync.batch": {
        const handed = timelines.releasedUpTo(frame.conversation_id);
        frame.messages.filter((m) => m.seq <= handed && counts(m)).forEach((m) => this.reactions({ type: "reactions.update", conversation_id: frame.conversation_id, seq: m.seq, reactions: m.reactions ?? [] }));
        this.release(timelines.synced(frame, Date.now()));
        if (frame.reactions_changed?.length) {
          this.reactionPages++;
          frame.reactions_changed.forEach(({ seq, reactions }) => this.reactions({ type: "reactions.update", conversation_id: frame.conversation_id, seq, reactions }));
        }
        break;
      }
      case "reactions.update":
        this.reactions(frame);
        break;
      case "history.batch":
        this.release(timelines.history(frame, Date.now()));
        break;
      case "conversation.created":
        this.sync();
        break;
      case "conversation.updated":
        if (!frame.conversation.members.includes(this.user)) timelines.left(frame.conversation.conversation_id);
        else if (!timelines.holds(frame.conversation.conversation_id)) this.sync();
        break;
      default:
        break;
    }
  }
  /** A message's reactions now: told to the app if it has the message, else kept with it until it is handed over. */
  reactions(update) {
    if (this.timelines?.reactions(update) ?? true) this.events.emit("reactions", update);
  }
  /** Older messages for the app (newest first; not emitted as message events). */
  history(request) {
    return this.requests.request(request, "history.batch");
  }
  /** A gap's history, whose batch the timelines take when it comes; a refusal is an error event. */
  fillGap(request) {
    this.requests.ask(request, "history.batch").catch((failure) => {
      if (failure instanceof ParleyError) this.events.emit("error", failure.frame);
    });
  }
  /** This device's own send, acknowledged: its message joins its timeline as any other. */
  acknowledged(ack, send) {
    this.handedBeforeAnswer.delete(send.id);
    if (send.sealed !== void 0 && this.cipher !== void 0) this.ownPlaintexts.set(send.id, fromBase64(send.sealed.plaintext));
    const frame = JSON.parse(send.frame);
    if (frame.type === "reaction.set" && frame.ciphertext === void 0) return;
    const entry = frame.type === "message.send" ? { content: frame.content, reply_to: frame.reply_to ?? null, mentions: frame.mentions ?? [] } : frame.type === "reaction.set" ? { content: frame.ciphertext, relates_to: { kind: "reaction", seq: frame.target_seq } } : {
      content: frame.type === "message.edit" ? frame.content : { type: "deleted" },
      relates_to: { kind: frame.type === "message.edit" ? "edit" : "delete", seq: frame.target_seq }
    };
    this.release(this.timelines.offer({
      id: ack.id,
      conversation_id: ack.conversation_id,
      seq: ack.seq,
      sender_id: this.user,
      sender_device: this.device,
      ...entry,
      server_timestamp: ack.server_timestamp
    }, Date.now()));
  }
  /**
   * A queued request answered. A sealed reaction's entry (its message.ack lost) comes from a sync or history: its plaintext is
   * kept for it, unless it was handed to the app already.
   */
  requestAnswered(request) {
    if (!this.handedBeforeAnswer.delete(request.id) && request.sealed !== void 0 && this.cipher !== void 0) {
      this.ownPlaintexts.set(request.id, fromBase64(request.sealed.plaintext));
    }
  }
  markRead(conversationId, seq) {
    this.readToSend.set(conversationId, Math.max(seq, this.readToSend.get(conversationId) ?? 0));
    this.flushReads();
  }
  flushReads() {
    if (this.connection.state !== "online") return;
    this.readToSend.forEach((seq, conversation) => this.connection.send({ type: "message.read", conversation_id: conversation, seq }));
    this.readToSend.clear();
  }
  release(ready) {
    const cipher = this.cipher;
    if (cipher === void 0 || !ready.some((message) => message.content.envelopes !== void 0)) {
      if (cipher === void 0) this.handOver(ready, /* @__PURE__ */ new Map());
      else this.handing = this.handing.then(() => this.handOver(ready, /* @__PURE__ */ new Map()));
      return;
    }
    this.handing = this.handing.then(async () => {
      const plaintexts = /* @__PURE__ */ new Map();
      for (const message of ready) {
        if (message.content.envelopes !== void 0) plaintexts.set(message, await this.openSealed(cipher, message));
      }
      this.handOver(ready, plaintexts);
    });
  }
  /**
   * This device's plaintext of a sealed message: its own send's (it has no envelope of its own), kept from the ack or, when
   * the message comes before its ack (a sync after a lost ack), the pending send's; else the cipher's opening.
   */
  async openSealed(cipher, message) {
    const own = this.ownPlaintexts.get(message.id);
    if (own !== void 0) {
      this.ownPlaintexts.delete(message.id);
      return own;
    }
    const pending = message.sender_id === this.user && message.sender_device === this.device ? this.ownSend(message.id)?.sealed : void 0;
    if (pending !== void 0) {
      this.handedBeforeAnswer.add(message.id);
      return fromBase64(pending.plaintext);
    }
    try {
      return await cipher.open(message);
    } catch (unreadable) {
      console.warn(`message ${message.seq} of ${message.conversation_id} did not decrypt`, unreadable);
      return void 0;
    }
  }
  handOver(ready, plaintexts) {
    if (this.connection.state === "closed") return;
    const upTo = /* @__PURE__ */ new Map();
    for (const message of ready) {
      upTo.set(message.conversation_id, Math.max(message.seq, upTo.get(message.conversation_id) ?? 0));
      if (message.content.type === "void") continue;
      if (plaintexts.has(message)) this.events.emit("sealedMessage", { message, plaintext: plaintexts.get(message) });
      else this.events.emit("message", message);
      if (message.relates_to !== void 0 && !plaintexts.has(message)) {
        this.events.emit("change", {
          conversation_id: message.conversation_id,
          seq: message.relates_to.seq,
          kind: message.relates_to.kind,
          content: message.content,
          at: message.server_timestamp,
          entry: message
        });
      }
    }
    upTo.forEach((seq, conversation) => {
      void this.writes.write(() => this.store.setHeldUpTo(conversation, seq));
      if (seq > (this.deliveredSent.get(conversation) ?? 0)) {
        this.deliveredSent.set(conversation, seq);
        this.connection.send({ type: "message.delivered", conversation_id: conversation, seq });
      }
    });
    if (this.timelines?.needsSync && this.connection.state === "online") this.sync();
  }
};

// src/requests.ts
var Requests = class {
  constructor(connection, timers, timeoutMs) {
    this.connection = connection;
    this.timers = timers;
    this.timeoutMs = timeoutMs;
  }
  connection;
  timers;
  timeoutMs;
  pending = /* @__PURE__ */ new Map();
  /** An app's request: online only, so that its answer cannot come before what it depends on. */
  request(frame, answerType) {
    if (this.connection.state !== "online") return Promise.reject(new Error(`not connected (${this.connection.state})`));
    return this.ask(frame, answerType);
  }
  /** A request on the open connection (the client's own, too: a gap's history, presence renewed); a create's id is its own. */
  ask(frame, answerType) {
    if (!this.connection.open) return Promise.reject(new Error(`not connected (${this.connection.state})`));
    const id = frame.type === "conversation.create" ? frame.id : crypto.randomUUID();
    return new Promise((resolve, reject) => {
      const timer = this.timers.later(() => {
        if (this.pending.delete(id)) reject(new Error(`${frame.type} ${id} was not answered within ${this.timeoutMs} ms`));
      }, this.timeoutMs);
      this.pending.set(id, { answerType, resolve, reject, timer });
      this.connection.send({ ...frame, id });
    });
  }
  /**
   * Settles the request this frame answers: the one its ref names; without a ref (a server of protocol 1.0), the oldest in
   * flight awaiting a frame of its type. True when one was waiting.
   */
  answered(ref, frame) {
    let id = ref !== null && this.pending.has(ref) ? ref : void 0;
    if (id === void 0 && ref === null && frame.type !== "error") {
      id = [...this.pending].find(([, request2]) => request2.answerType === frame.type)?.[0];
    }
    const request = id === void 0 ? void 0 : this.pending.get(id);
    if (id === void 0 || request === void 0) return false;
    this.pending.delete(id);
    this.timers.cancel(request.timer);
    if (frame.type === "error") request.reject(new ParleyError(frame));
    else request.resolve(frame);
    return true;
  }
  /** Every request in flight fails: the connection that would carry its answer is gone, or the client closed. */
  failAll(why) {
    const waiting = [...this.pending.values()];
    this.pending.clear();
    waiting.forEach((request) => {
      this.timers.cancel(request.timer);
      request.reject(new Error(why));
    });
  }
};

// src/scheduler.ts
var Scheduler = class {
  constructor(keepProcessAlive) {
    this.keepProcessAlive = keepProcessAlive;
  }
  keepProcessAlive;
  timers = /* @__PURE__ */ new Set();
  ticker;
  stopped = false;
  /** Runs work after ms, unless the scheduler stopped meanwhile; the result cancels it. */
  later(work, ms) {
    const timer = setTimeout(() => {
      this.timers.delete(timer);
      if (!this.stopped) work();
    }, ms);
    if (!this.keepProcessAlive) unref(timer);
    this.timers.add(timer);
    return timer;
  }
  cancel(timer) {
    if (timer === void 0) return;
    clearTimeout(timer);
    this.timers.delete(timer);
  }
  every(work, ms) {
    this.ticker = setInterval(() => {
      if (!this.stopped) work();
    }, ms);
    if (!this.keepProcessAlive) unref(this.ticker);
  }
  stop() {
    this.stopped = true;
    if (this.ticker !== void 0) clearInterval(this.ticker);
    this.timers.forEach((timer) => clearTimeout(timer));
    this.timers.clear();
  }
};
function unref(timer) {
  timer.unref?.();
}
function watchTheNetwork(wake) {
  const target = globalThis;
  const onVisible = () => {
    if (target.document?.visibilityState !== "hidden") wake();
  };
  target.addEventListener?.("online", wake);
  target.document?.addEventListener?.("visibilitychange", onVisible);
  return () => {
    target.removeEventListener?.("online", wake);
    target.document?.removeEventListener?.("visibilitychange", onVisible);
  };
}

// src/outbox.ts
var Outbox = class {
  queues = /* @__PURE__ */ new Map();
  wire = /* @__PURE__ */ new Map();
  /** How many times each send went out, on any connection: its next transmission is attempt this plus one. */
  transmissions = /* @__PURE__ */ new Map();
  /** Sends an earlier run left unacknowledged: they go out again under their own ids, as resends (they may have arrived). */
  constructor(restored) {
    for (const send of restored) {
      this.enqueue(send);
      this.transmissions.set(send.id, 1);
    }
  }
  add(send) {
    this.enqueue(send);
  }
  enqueue(send) {
    const queue = this.queues.get(send.conversation_id) ?? [];
    queue.push(send);
    this.queues.set(send.conversation_id, queue);
  }
  get size() {
    let count = 0;
    for (const queue of this.queues.values()) count += queue.length;
    return count;
  }
  /** Every send queued, per conversation in order. */
  all() {
    return [...this.queues.values()].flat();
  }
  /** The heads of the queues not on the wire yet. */
  ready() {
    return this.heads().filter((head) => !this.wire.has(head.id));
  }
  /** Heads on the wire since before {@code sentBefore} with no answer and no resend scheduled, and those whose resend is due. */
  due(sentBefore, now) {
    return this.heads().filter((head) => {
      const state = this.wire.get(head.id);
      if (state === void 0) return false;
      return state.resendAt === void 0 ? state.sentAt < sentBefore : state.resendAt <= now;
    });
  }
  /** Records a transmission; returns its attempt number (1 for the first, on whatever connection). */
  transmitted(id, at) {
    this.wire.set(id, { sentAt: at });
    const attempt = (this.transmissions.get(id) ?? 0) + 1;
    this.transmissions.set(id, attempt);
    return attempt;
  }
  /** The server answered this send with a wait (a limit, a send still being stored): it goes again at {@code at}. */
  retryAt(id, at) {
    const state = this.wire.get(id);
    if (state !== void 0) state.resendAt = at;
  }
  /**
   * The gateway refused a frame without saying which: every head on the wire with no resend scheduled goes again at {@code at}.
   * False when there was none, so that a burst of refusals counts as one round.
   */
  gatewayRefused(at) {
    let scheduled = false;
    for (const state of this.wire.values()) {
      if (state.resendAt === void 0) {
        state.resendAt = at;
        scheduled = true;
      }
    }
    return scheduled;
  }
  /** A send being sealed again (devices_changed): nothing sends it until resealed(). */
  hold(id) {
    const state = this.wire.get(id);
    if (state !== void 0) state.resendAt = Number.MAX_SAFE_INTEGER;
  }
  /** The send sealed again: it takes its old place, and goes out at {@code now} (or on the next connection). */
  resealed(send, now) {
    for (const queue of this.queues.values()) {
      const index = queue.findIndex((held) => held.id === send.id);
      if (index >= 0) {
        queue[index] = send;
        const state = this.wire.get(send.id);
        if (state !== void 0) state.resendAt = now;
        return;
      }
    }
  }
  /** The connection is gone: every head goes out again on the next one. */
  connectionLost() {
    this.wire.clear();
  }
  find(id) {
    for (const queue of this.queues.values()) {
      const send = queue.find((pending) => pending.id === id);
      if (send !== void 0) return send;
    }
    return void 0;
  }
  /** The send this ack is for, done with; undefined for an ack seen already (the server may send one twice). */
  acknowledged(ack) {
    return this.remove(ack.id);
  }
  remove(id) {
    for (const queue of this.queues.values()) {
      const index = queue.findIndex((send) => send.id === id);
      if (index >= 0) {
        const [send] = queue.splice(index, 1);
        this.wire.delete(id);
        this.transmissions.delete(id);
        return send;
      }
    }
    return void 0;
  }
  heads() {
    const heads = [];
    for (const queue of this.queues.values()) {
      const head = queue[0];
      if (head !== void 0) heads.push(head);
    }
    return heads;
  }
};

// src/schema-check.ts
var DEFS = FRAME_SCHEMA_DEFS;
function misfit(value, name, strict) {
  const def = DEFS[name];
  if (def === void 0) {
    throw new Error(`the schema has no definition ${name}`);
  }
  return check(value, def, "frame", strict);
}
function typeOf(value) {
  if (value === null) return "null";
  if (Array.isArray(value)) return "array";
  if (typeof value === "number") return Number.isInteger(value) ? "integer" : "number";
  return typeof value;
}
function describe(node) {
  if (node.$ref !== void 0) return node.$ref.replace("#/$defs/", "");
  if (node.enum !== void 0) return `one of ${node.enum.map((value) => JSON.stringify(value)).join(", ")}`;
  if (node.const !== void 0) return JSON.stringify(node.const);
  return Array.isArray(node.type) ? node.type.join(" or ") : String(node.type);
}
function check(value, node, path, strict) {
  if (node.$ref !== void 0) {
    return check(value, DEFS[node.$ref.replace("#/$defs/", "")], path, strict);
  }
  const alternatives = node.anyOf ?? node.oneOf;
  if (alternatives !== void 0) {
    return alternatives.some((alternative) => check(value, alternative, path, strict) === void 0) ? void 0 : `${path} must be ${alternatives.map(describe).join(" or ")}`;
  }
  if (node.const !== void 0 && value !== node.const) {
    return `${path} must be ${JSON.stringify(node.const)}`;
  }
  if (node.enum !== void 0 && !node.enum.includes(value)) {
    return `${path} must be ${describe(node)}, was ${JSON.stringify(value)}`;
  }
  if (node.type !== void 0) {
    const allowed = Array.isArray(node.type) ? node.type : [node.type];
    const actual = typeOf(value);
    if (!allowed.includes(actual) && !(actual === "integer" && allowed.includes("number"))) {
      return `${path} must be ${describe(node)}, was ${actual}`;
    }
  }
  if (typeof value === "string" && node.pattern !== void 0 && !new RegExp(node.pattern, "u").test(value)) {
    return `${path} must match ${node.pattern}`;
  }
  if (Array.isArray(value) && node.items !== void 0) {
    for (let i = 0; i < value.length; i++) {
      const problem = check(value[i], node.items, `${path}[${i}]`, strict);
      if (problem !== void 0) return problem;
    }
  }
  if (typeOf(value) === "object") {
    return checkObject(value, node, path, strict);
  }
  return void 0;
}
function checkObject(value, node, path, strict) {
  for (const field of node.required ?? []) {
    if (!(field in value)) return `${path}.${field} is required`;
  }
  const properties = node.properties ?? {};
  for (const [field, fieldValue] of Object.entries(value)) {
    const property = properties[field];
    if (property !== void 0) {
      const problem = check(fieldValue, property, `${path}.${field}`, strict);
      if (problem !== void 0) return problem;
    } else if (typeof node.additionalProperties === "object") {
      const problem = check(fieldValue, node.additionalProperties, `${path}.${field}`, strict);
      if (problem !== void 0) return problem;
    } else if (strict && node.additionalProperties === false) {
      return `${path}.${field} is not a field the schema names`;
    }
  }
  return void 0;
}
function decode(text, defs, side, strict) {
  let value;
  try {
    value = JSON.parse(text);
  } catch (error) {
    return { ok: false, reason: `not JSON: ${error.message}` };
  }
  if (typeOf(value) !== "object") {
    return { ok: false, reason: "a frame must be a JSON object" };
  }
  const type = value.type;
  if (typeof type !== "string" || !Object.hasOwn(defs, type)) {
    return { ok: false, reason: `not a ${side} frame type: ${JSON.stringify(type)}` };
  }
  const problem = misfit(value, defs[type], strict);
  return problem === void 0 ? { ok: true, frame: value } : { ok: false, reason: `${type}: ${problem}` };
}
function decodeServerFrame(text, strict = false) {
  return decode(text, SERVER_FRAME_DEFS, "server", strict);
}
function decodeClientFrame(text) {
  return decode(text, CLIENT_FRAME_DEFS, "client", true);
}

// src/sender.ts
var GATEWAY_RESEND = { minMs: 250, maxMs: 8e3 };
var MAX_RESEALS = 3;
var utf8 = new TextEncoder();
var Sender = class {
  constructor(connection, timers, events, store, writes, keys, cipher) {
    this.connection = connection;
    this.timers = timers;
    this.events = events;
    this.store = store;
    this.writes = writes;
    this.keys = keys;
    this.cipher = cipher;
  }
  connection;
  timers;
  events;
  store;
  writes;
  keys;
  cipher;
  outbox;
  /** Each queued send's promise: resolved with its answer (message.ack, or a request's). */
  ackWaiters = /* @__PURE__ */ new Map();
  /** How many times running each end-to-end send was sealed again after devices_changed. */
  reseals = /* @__PURE__ */ new Map();
  gatewayRefusals = 0;
  /** Seals, one after another in the order asked (a cipher's sessions are not safe to use twice at once). */
  sealing = Promise.resolve();
  /** What runs when a retry's time comes: the client's tick, which sends what is due. */
  onRetryDue = () => void 0;
  load(pending) {
    this.outbox = new Outbox(pending);
  }
  get pendingSends() {
    return this.outbox?.all() ?? [];
  }
  get pendingCount() {
    return this.outbox?.size ?? 0;
  }
  /**
   * An entry of the log (a send, an edit, a delete) queued once the store is loaded: refused here, naming why, if the server
   * would refuse it at once; else kept in the store, sent in its conversation's order and resent under its id until its ack.
   */
  enqueue(frame, started) {
    const text = JSON.stringify(frame);
    const refused = this.refusal(text, frame.id);
    if (refused !== void 0) return { id: frame.id, queued: handled(Promise.reject(refused)), acknowledged: handled(Promise.reject(refused)) };
    return this.queue(frame.id, started.then(() => ({ id: frame.id, conversation_id: frame.conversation_id, frame: text })));
  }
  /**
   * A request that changes a message (a reaction, a pin) queued as the log's entries are: kept in the store, sent in its
   * conversation's order, resent under its id (a repeat sets the same again) until answered; resolves with the answer.
   */
  enqueueRequest(request, started) {
    const frame = { ...request, id: crypto.randomUUID() };
    const text = JSON.stringify(frame);
    const refused = this.refusal(text, frame.id);
    if (refused !== void 0) return handled(Promise.reject(refused));
    return this.queue(frame.id, started.then(() => ({ id: frame.id, conversation_id: frame.conversation_id, frame: text }))).acknowledged;
  }
  /**
   * An end-to-end entry (a send, a sealed reaction) queued once the cipher sealed it, seals in the order asked; frame makes
   * its frame of the envelopes. Sealed again on devices_changed; what it was sealed from stays in the store until answered.
   */
  queueSealed(id, conversationId, members, plaintext, frame, started) {
    const cipher = this.cipher;
    if (cipher === void 0) throw new Error("no cipher was given to the client (options.cipher)");
    const sealed = { members: [...members], plaintext: toBase64(plaintext) };
    const pending = started().then(() => this.serially(() => cipher.seal(conversationId, members, plaintext, this.keys))).then((envelopes) => {
      const text = JSON.stringify(frame(envelopes));
      const refused = this.refusal(text, id);
      if (refused !== void 0) throw refused;
      return { id, conversation_id: conversationId, frame: text, sealed };
    });
    return this.queue(id, pending);
  }
  /** An answer naming a queued request (ref): it is done, out of the store, and the next go; the request, if one was queued. */
  answered(ref, answer) {
    const send = ref === null ? void 0 : this.outbox?.remove(ref);
    if (send === void 0) return void 0;
    void this.writes.write(() => this.store.removePendingSend(send.id));
    this.ackWaiters.get(send.id)?.resolve(answer);
    this.ackWaiters.delete(send.id);
    this.gatewayRefusals = 0;
    this.transmitReady();
    return send;
  }
  /** Why the server would refuse this entry at once, if it would: checked here so that no queue holds it. */
  refusal(text, id) {
    const size = utf8.encode(text).length;
    if (size > LIMITS.max_frame_bytes) {
      return ParleyError.of("too_large", `the ${JSON.parse(text).type} frame is ${size} bytes; a frame may be at most ${LIMITS.max_frame_bytes}`, id);
    }
    const decoded = decodeClientFrame(text);
    if (!decoded.ok) return ParleyError.of("bad_request", decoded.reason, id);
    if (JSON.parse(text).content?.type === "void") return ParleyError.of("bad_request", "content.type: void is written by the server only", id);
    return void 0;
  }
  /** A send on its way to the store and the queue: its promises, of which queued rejects if it never gets there. */
  queue(id, pending) {
    const acknowledged = handled(new Promise((resolve, reject) => this.ackWaiters.set(id, { resolve: (answer) => resolve(answer), reject })));
    const queued = handled(pending.then((send) => this.writes.write(() => this.store.addPendingSend(send)).then(() => {
      if (this.connection.state === "closed") return;
      this.outbox?.add(send);
      this.transmitReady();
    })));
    queued.catch((error) => {
      this.ackWaiters.get(id)?.reject(error);
      this.ackWaiters.delete(id);
    });
    return { id, queued, acknowledged };
  }
  /** Seals in the order asked. */
  serially(work) {
    const result = this.sealing.then(work);
    this.sealing = result.catch(() => void 0);
    return result;
  }
  /** The send this ack is for, when it was pending: out of the store, its promise resolved, the app told, the next sends go. */
  acknowledged(ack) {
    this.gatewayRefusals = 0;
    const send = this.outbox?.acknowledged(ack);
    if (send !== void 0) {
      void this.writes.write(() => this.store.removePendingSend(send.id));
      this.reseals.delete(send.id);
      this.ackWaiters.get(ack.id)?.resolve(ack);
      this.ackWaiters.delete(ack.id);
      this.events.emit("sent", ack);
    }
    this.transmitReady();
    return send;
  }
  /** The pending send with this id (its own message may arrive before its ack). */
  find(id) {
    return this.outbox?.find(id);
  }
  /** An error that names a pending send: retried, sealed again, or the send fails. False when it names none. */
  refused(error) {
    const send = this.outbox?.find(error.ref ?? "");
    if (send === void 0) return false;
    const reseals = (this.reseals.get(send.id) ?? 0) + 1;
    if (error.code === "devices_changed" && send.sealed !== void 0 && this.cipher !== void 0 && reseals <= MAX_RESEALS) {
      this.reseals.set(send.id, reseals);
      this.reseal(this.cipher, send, error);
    } else if (retryable(error)) {
      const wait = error.retry_after_ms ?? (error.code === "conflict" ? 500 : 1e3);
      this.outbox?.retryAt(send.id, Date.now() + wait);
      this.timers.later(() => this.onRetryDue(), wait);
    } else {
      this.fail(send, error);
    }
    return true;
  }
  /** A send refused for good: out of the queue and the store, its promise rejected, the app told; the conversation goes on. */
  fail(send, error) {
    this.outbox?.remove(send.id);
    this.reseals.delete(send.id);
    void this.writes.write(() => this.store.removePendingSend(send.id));
    this.ackWaiters.get(send.id)?.reject(new ParleyError(error));
    this.ackWaiters.delete(send.id);
    this.events.emit("sendFailed", { send, error });
    this.transmitReady();
  }
  /**
   * An end-to-end send refused devices_changed: held while the cipher takes in the devices named and seals again, then sent
   * under the same id; a seal that fails, or seals into what a frame cannot carry, fails the send.
   */
  reseal(cipher, send, error) {
    const sealed = send.sealed;
    this.outbox?.hold(send.id);
    const mismatch = { missing: error.missing ?? [], extra: error.extra ?? [], stale: error.stale ?? [] };
    this.serially(async () => {
      await cipher.devicesChanged(mismatch, this.keys);
      return cipher.seal(send.conversation_id, sealed.members, fromBase64(sealed.plaintext), this.keys);
    }).then((envelopes) => {
      const previous = JSON.parse(send.frame);
      const content = { type: "ciphertext", envelopes };
      const text = JSON.stringify(previous.type === "reaction.set" ? { ...previous, ciphertext: content } : { ...previous, content });
      const refused = this.refusal(text, send.id);
      if (refused !== void 0) throw refused;
      const resealed = { ...send, frame: text };
      this.outbox?.resealed(resealed, Date.now());
      void this.writes.write(() => this.store.replacePendingSend(resealed));
      this.onRetryDue();
      this.transmitReady();
    }).catch((failure) => {
      if (this.connection.state === "closed") return;
      this.fail(send, failure instanceof ParleyError ? failure.frame : { type: "error", code: "bad_request", message: `sealing the message again failed: ${failure.message}`, ref: send.id });
    });
  }
  /** Online again: what is queued goes, and gateway refusals count afresh. */
  online() {
    this.gatewayRefusals = 0;
    this.transmitReady();
  }
  transmitReady() {
    if (this.connection.state === "online") this.outbox?.ready().forEach((send) => this.transmit(send));
  }
  /** Sends whose ack is overdue go again (same id). */
  resendOverdue(now, ackTimeoutMs) {
    this.outbox?.due(now - ackTimeoutMs, now).forEach((send) => this.transmit(send));
  }
  /**
   * A send on the wire; a resend of a log entry says so (attempt), so that the server checks for it before taking a seq. A
   * request (a reaction, a pin) goes again as it was: it sets the same again, and has no attempt to count.
   */
  transmit(send) {
    if (!this.connection.open || this.outbox === void 0) return;
    const attempt = this.outbox.transmitted(send.id, Date.now());
    const frame = JSON.parse(send.frame);
    const entry = frame.type === "message.send" || frame.type === "message.edit" || frame.type === "message.delete";
    this.connection.send(attempt === 1 || !entry ? send.frame : JSON.stringify({ ...frame, attempt }));
  }
  /**
   * API Gateway refused a frame before any function saw it, in a frame naming no id of ours: every send on the wire goes
   * again after a jittered backoff (doubling per round of refusals with no ack between), not after the ack timeout.
   * resync is told the wait, and says whether a sync is asked again after it.
   */
  gatewayRefused(resync) {
    const wait = jitteredDelay(GATEWAY_RESEND.minMs, GATEWAY_RESEND.maxMs, this.gatewayRefusals);
    const resending = this.outbox?.gatewayRefused(Date.now() + wait) ?? false;
    const resyncing = resync(wait);
    if (resending || resyncing) {
      this.gatewayRefusals++;
      this.timers.later(() => this.onRetryDue(), wait);
    }
  }
  connectionLost() {
    this.outbox?.connectionLost();
  }
  closed() {
    const closed = new Error("the client was closed before the ack");
    this.ackWaiters.forEach((waiter) => waiter.reject(closed));
    this.ackWaiters.clear();
  }
};
function retryable(error) {
  return error.code === "rate_limited" || error.code === "internal" || error.code === "conflict" && error.message.includes("still in progress");
}
function handled(promise) {
  promise.catch(() => void 0);
  return promise;
}

// src/session.ts
var PUSHES = /* @__PURE__ */ new Set([
  "message.receive",
  "receipt.update",
  "typing.update",
  "notification.receive",
  "presence.update",
  "identity.changed",
  "keys.low",
  "reactions.update"
]);
var Session = class {
  constructor(connection, requests, sender, receiving, presence, events, ackTimeoutMs) {
    this.connection = connection;
    this.requests = requests;
    this.sender = sender;
    this.receiving = receiving;
    this.presence = presence;
    this.events = events;
    this.ackTimeoutMs = ackTimeoutMs;
    sender.onRetryDue = () => this.tick();
  }
  connection;
  requests;
  sender;
  receiving;
  presence;
  events;
  ackTimeoutMs;
  opened() {
    this.receiving.sync();
  }
  lost(why) {
    this.sender.connectionLost();
    this.requests.failAll(`disconnected: ${why}`);
  }
  text(text) {
    const decoded = decodeServerFrame(text);
    if (!decoded.ok) {
      if (isGatewayRefusal(text)) this.sender.gatewayRefused((wait) => this.receiving.resyncAfter(wait));
      else this.events.emit("error", { type: "error", code: "internal", message: `the client could not read a frame: ${decoded.reason}`, ref: null });
      return;
    }
    const frame = decoded.frame;
    this.receiving.take(frame);
    switch (frame.type) {
      case "sync.done":
        this.synced(frame);
        break;
      case "message.ack": {
        const send = this.sender.acknowledged(frame);
        if (send !== void 0) this.receiving.acknowledged(frame, send);
        break;
      }
      case "error":
        this.refused(frame);
        break;
      case "receipt.update":
        this.events.emit("receipt", frame);
        break;
      case "typing.update":
        this.events.emit("typing", frame);
        break;
      case "presence.update": {
        const { type: _type, ...presence } = frame;
        this.events.emit("presence", presence);
        break;
      }
      case "presence.batch":
        frame.users.forEach((presence) => this.events.emit("presence", presence));
        break;
      case "notification.receive": {
        const { type: _type, ...notification } = frame;
        this.events.emit("notification", notification);
        this.connection.send({ type: "notification.ack", ids: [notification.notification_id] });
        break;
      }
      case "inbox.counts":
        this.events.emit("inboxCounts", { unread_count: frame.unread_count, unseen_count: frame.unseen_count });
        break;
      case "conversation.created":
      case "conversation.updated":
        this.events.emit("conversation", frame.conversation);
        break;
      case "keys.low":
        this.events.emit("keysLow", { pre_key_count: frame.pre_key_count, pq_pre_key_count: frame.pq_pre_key_count });
        break;
      case "identity.changed":
        this.events.emit("identityChanged", frame.user_id);
        break;
      default:
        break;
    }
    if (frame.type !== "error" && frame.type !== "sync.batch" && frame.type !== "message.ack" && !PUSHES.has(frame.type)) {
      const ref = frame.ref ?? null;
      const request = this.sender.answered(ref, frame);
      if (request === void 0) this.requests.answered(ref, frame);
      else this.receiving.requestAnswered(request);
    }
  }
  /** An error answers a send (its id), a request (its id), or the sync in flight (its id); else it is the app's to hear. */
  refused(error) {
    if (this.sender.refused(error) || this.requests.answered(error.ref, error) || this.receiving.syncRefused(error)) return;
    this.events.emit("error", error);
  }
  /** Caught up: the queue goes out, what the app read while offline is told, presence is subscribed again. */
  synced(done2) {
    this.receiving.synced(done2);
    if (!this.connection.synced()) return;
    this.receiving.online();
    this.sender.online();
    this.presence.renew();
  }
  /** Every 200 ms: a sync unanswered, gaps to fill, presence to renew, sends whose ack is overdue, the heartbeat. */
  tick() {
    if (!this.connection.open) return;
    const now = Date.now();
    this.receiving.tick(now);
    if (this.connection.state === "online") {
      this.presence.renewIfDue(now);
      this.sender.resendOverdue(now, this.ackTimeoutMs);
    }
    this.connection.heartbeat(now);
  }
};

// src/client.ts
var TICK_MS = 200;
var ParleyClient = class {
  user;
  device;
  settings;
  events = new Emitter();
  timers;
  connection;
  requests;
  /** A group's members, roles, settings, bans and invites, and leaving it. */
  groups;
  sender;
  receiving;
  presence;
  session;
  /** The key directory as the cipher reaches it: keys.fetch through this client. */
  keys = { fetch: (user, device) => this.fetchKeys(user, device) };
  loaded;
  stopWatching = () => void 0;
  constructor(options) {
    const settings = settingsOf(options);
    this.settings = settings;
    this.user = settings.user;
    this.device = settings.device;
    this.timers = new Scheduler(settings.keepProcessAlive);
    this.connection = new Connection(settings, this.timers, (change) => this.events.emit("state", change));
    this.requests = new Requests(this.connection, this.timers, settings.requestTimeoutMs);
    this.groups = new Groups(this.requests);
    const writes = new StoreWrites((error) => this.events.emit(
      "error",
      { type: "error", code: "internal", message: `the client's store failed: ${error.message}`, ref: null }
    ));
    this.sender = new Sender(this.connection, this.timers, this.events, settings.store, writes, this.keys, settings.cipher);
    this.receiving = new Receiving(
      this.connection,
      this.requests,
      this.timers,
      this.events,
      settings.store,
      writes,
      settings.cipher,
      settings.user,
      settings.device,
      (id) => this.sender.find(id)
    );
    this.presence = new PresenceWatch(this.requests, settings.presenceRenewalMs);
    this.session = new Session(this.connection, this.requests, this.sender, this.receiving, this.presence, this.events, settings.ackTimeoutMs);
    this.connection.bind(this.session);
  }
  /** The connection's state now. */
  get state() {
    return this.connection.state;
  }
  /** Sends queued and not yet acknowledged. */
  get pendingCount() {
    return this.sender.pendingCount;
  }
  /** The sends queued and not yet acknowledged, in the order made (an app shows them as sending). */
  get pendingSends() {
    return this.sender.pendingSends;
  }
  /** Listens to an event; returns what stops listening. A listener that throws does not stop the client. */
  on(event, listener) {
    return this.events.on(event, listener);
  }
  /**
   * Loads the store (the sends an earlier run left go out again) and connects; stays connected until close(). In Node the
   * client keeps the process alive until then (options.keepProcessAlive).
   */
  start() {
    if (this.loaded === void 0) {
      this.loaded = this.settings.store.load().then((stored) => {
        this.receiving.load(stored.heldUpTo, this.settings.gapTimeoutMs, stored.changesAt);
        this.sender.load(stored.pendingSends);
        if (this.connection.state === "closed") return;
        this.timers.every(() => this.session.tick(), TICK_MS);
        this.stopWatching = watchTheNetwork(() => this.connection.wakeUp());
        this.connection.start();
      });
    }
    return this.loaded;
  }
  /**
   * Queues a message: it is stored on the server once, whatever reconnects or reloads happen before its ack, and after the
   * ones the app sent before it in the same conversation. It may reply to a message (replyTo, a seq of the conversation) and
   * mention members (user ids; "*" for every member, a group's admins only). A send the server would refuse (a field out of
   * bounds, a frame over 128 KB) is refused here, its promises rejected with a ParleyError naming why, and nothing is queued.
   */
  send(conversationId, content, options = {}) {
    return this.sender.enqueue(
      {
        type: "message.send",
        id: crypto.randomUUID(),
        conversation_id: conversationId,
        content,
        timestamp: Date.now(),
        ...options.replyTo === void 0 ? {} : { reply_to: options.replyTo },
        ...options.mentions === void 0 ? {} : { mentions: options.mentions }
      },
      this.started()
    );
  }
  /**
   * Queues an edit of this user's message at seq (within the edit window, 15 minutes by default): text for text, text as a
   * media message's caption. It goes through the queue as a send does, resent under its id until acknowledged (its own seq);
   * every member's client emits it as a change event.
   */
  edit(conversationId, seq, content) {
    return this.sender.enqueue({ type: "message.edit", id: crypto.randomUUID(), conversation_id: conversationId, target_seq: seq, content }, this.started());
  }
  /** Queues a delete for everyone of the message at seq (the sender's within 48 hours; a group admin's any time), as edit() goes. */
  delete(conversationId, seq) {
    return this.sender.enqueue({ type: "message.delete", id: crypto.randomUUID(), conversation_id: conversationId, target_seq: seq }, this.started());
  }
  /**
   * Queues an end-to-end message (docs/e2e.md): the cipher seals the plaintext into one envelope per device of the members
   * (the conversation's, this user's included); if the server answers devices_changed, the cipher takes in the devices named
   * and seals again, sent under the same id. Otherwise as send(); sealed sends keep their order among themselves. The
   * message comes back, once stored, as a sealedMessage event with this plaintext.
   */
  sendSealed(conversationId, members, plaintext) {
    const id = crypto.randomUUID();
    const timestamp = Date.now();
    return this.sender.queueSealed(id, conversationId, members, plaintext, (envelopes) => ({ type: "message.send", id, conversation_id: conversationId, content: { type: "ciphertext", envelopes }, timestamp }), () => this.started());
  }
  /**
   * A sealed reaction to an end-to-end message: the plaintext (the app's own form: the emoji, or nothing to remove) sealed and
   * queued as sendSealed's is; an entry of the log every member's client emits as a sealedMessage (relates_to reaction).
   */
  async reactSealed(conversationId, members, seq, plaintext) {
    const id = crypto.randomUUID();
    const answer = await this.sender.queueSealed(id, conversationId, members, plaintext, (envelopes) => ({
      type: "reaction.set",
      id,
      conversation_id: conversationId,
      target_seq: seq,
      emoji: null,
      ciphertext: { type: "ciphertext", envelopes }
    }), () => this.started()).acknowledged;
    return answer.type === "reaction.ack" ? answer : { type: "reaction.ack", conversation_id: conversationId, target_seq: seq, emoji: null, ref: id };
  }
  /** This device's public keys for end-to-end encryption: the counts of one-time keys the server now holds. */
  async uploadKeys(keys) {
    const { pre_key_count, pq_pre_key_count } = await this.requests.request({ type: "keys.upload", ...keys }, "keys.uploaded");
    return { pre_key_count, pq_pre_key_count };
  }
  /** A user's devices' keys (or one device's), each one-time key handed to this fetch alone; not_found when there are none. */
  fetchKeys(user, device) {
    return this.requests.request(
      device === void 0 ? { type: "keys.fetch", user_id: user } : { type: "keys.fetch", user_id: user, device_id: device },
      "keys.bundle"
    );
  }
  /**
   * Sets the user's one reaction to the message at seq (null removes it); members hear it as a reactions event. Through the
   * queue: kept in the store, in the conversation's order, resent under its id across reconnects and reloads until answered.
   */
  async react(conversationId, seq, emoji) {
    return await this.sender.enqueueRequest({ type: "reaction.set", conversation_id: conversationId, target_seq: seq, emoji }, this.started());
  }
  /** The user has seen the conversation up to seq: its senders get a read receipt (sent when online). */
  markRead(conversationId, seq) {
    this.receiving.markRead(conversationId, seq);
  }
  /** The user is typing ("start", as often as keystrokes come: the server coalesces) or stopped. */
  typing(conversationId, state) {
    if (this.connection.state === "online") this.connection.send({ type: "typing", conversation_id: conversationId, state });
  }
  /** The direct conversation with another user: created, or the existing one. The request's id is the creation's own. */
  async createDirect(other) {
    return (await this.requests.request(
      { type: "conversation.create", id: crypto.randomUUID(), kind: "direct", members: [other] },
      "conversation.created"
    )).conversation;
  }
  async createGroup(name, members) {
    return (await this.requests.request(
      { type: "conversation.create", id: crypto.randomUUID(), kind: "group", members, name },
      "conversation.created"
    )).conversation;
  }
  /** Adds members to a group (admins only); answered by the conversation as it now is, as the next two are. */
  addMembers(conversationId, members) {
    return this.updated({ type: "conversation.members.add", conversation_id: conversationId, members });
  }
  removeMembers(conversationId, members) {
    return this.updated({ type: "conversation.members.remove", conversation_id: conversationId, members });
  }
  /** Pins the message at seq (pinned false unpins): a group's admins, either member of a direct one; at most 10 pinned. */
  async pin(conversationId, seq, pinned = true) {
    const answer = await this.sender.enqueueRequest({ type: "message.pin", conversation_id: conversationId, seq, pinned }, this.started());
    return answer.conversation;
  }
  async updated(frame) {
    return (await this.requests.request(frame, "conversation.updated")).conversation;
  }
  /** A page of the user's conversations with their unread counts (cursor: the previous page's next_cursor). */
  conversations(cursor) {
    return this.requests.request(cursor === void 0 ? { type: "conversation.list" } : { type: "conversation.list", cursor }, "conversation.page");
  }
  /** Older messages of a conversation, newest first (for scrolling back: they are not emitted as message events). */
  history(conversationId, options = {}) {
    const request = { type: "history.request", conversation_id: conversationId, limit: options.limit ?? 50 };
    if (options.beforeSeq !== void 0) request.before_seq = options.beforeSeq;
    return this.receiving.history(request);
  }
  /**
   * These users' presence now, then each change as a presence event, for as long as the app wants: the subscription is
   * renewed before it runs out and after every reconnect, until unsubscribePresence.
   */
  subscribePresence(users) {
    return this.presence.subscribe(users);
  }
  /** No more presence changes of these users (the server's subscription runs out by itself within five minutes). */
  unsubscribePresence(users) {
    this.presence.unsubscribe(users);
  }
  /** A page of the user's notification inbox, newest first, with its counts. */
  inbox(options = {}) {
    return this.requests.request({
      type: "inbox.list",
      filter: options.filter ?? "all",
      limit: options.limit ?? 50,
      ...options.cursor === void 0 ? {} : { cursor: options.cursor }
    }, "inbox.page");
  }
  /** Marks notifications (by id, or every one up to an id) seen, read, unread or archived; answered by the new counts. */
  markInbox(target, state) {
    const frame = "ids" in target ? { type: "inbox.mark", ids: target.ids, state } : { type: "inbox.mark", up_to: target.upTo, state };
    return this.requests.request(frame, "inbox.counts");
  }
  /** Mutes a followed topic (its notifications arrive read: no count, no push, nothing live) or unmutes it. */
  muteTopic(topic, muted) {
    return this.requests.request({ type: "topic.mute", topic, muted }, "topic.muted");
  }
  /** No push for the conversation until the epoch ms given; null unmutes. */
  muteConversation(conversationId, until) {
    return this.requests.request({ type: "conversation.mute", conversation_id: conversationId, until }, "conversation.muted");
  }
  /** The user's own settings: who sees their last seen, which notification categories push. */
  updateSettings(settings) {
    return this.requests.request({ type: "settings.update", ...settings }, "settings.updated");
  }
  /** Registers this device's push token (FCM or APNs). */
  registerDevice(platform, token) {
    return this.requests.request({ type: "device.register", platform, token }, "device.registered");
  }
  /**
   * Drops the connection and connects again at once, with a fresh token: for an app that learns the network changed (a new
   * Wi-Fi) sooner than a dead connection would show. Sends and subscriptions carry over. (A browser's online event and a tab
   * shown again reconnect an offline client by themselves.)
   */
  reconnect() {
    if (this.loaded !== void 0) this.connection.reconnect();
  }
  /**
   * Uploads a file for a conversation (docs/media.md): a grant, then the file posted straight to S3 with the grant's form.
   * Resolves with the content of a message naming it, to send; S3's refusal or the server's rejects, naming why.
   */
  uploadMedia(conversationId, file, caption) {
    return uploadMedia(this.requests, conversationId, file, caption);
  }
  /** Where a media object can be read now, and until when (epoch ms): a download grant. */
  mediaUrl(mediaId) {
    return mediaUrl(this.requests, mediaId);
  }
  /** Closes the connection for good, and with it every timer; the queue stays in the store, and a client started on it sends it. */
  close() {
    if (this.connection.state === "closed") return;
    this.connection.close();
    this.stopWatching();
    this.timers.stop();
    this.requests.failAll("the client was closed");
    this.sender.closed();
  }
  started() {
    return this.loaded ?? Promise.reject(new Error("start() the client before sending"));
  }
};

// src/indexeddb.ts
var HELD = "held";
var PENDING = "pending";
var VALUES = "values";
function done(request) {
  return new Promise((resolve, reject) => {
    request.onsuccess = () => resolve(request.result);
    request.onerror = () => reject(request.error ?? new Error("an IndexedDB request failed"));
  });
}
function committed(transaction) {
  return new Promise((resolve, reject) => {
    transaction.oncomplete = () => resolve();
    transaction.onerror = () => reject(transaction.error ?? new Error("an IndexedDB transaction failed"));
    transaction.onabort = () => reject(transaction.error ?? new Error("an IndexedDB transaction was aborted"));
  });
}
var IndexedDbClientStore = class {
  constructor(name, factory = globalThis.indexedDB) {
    this.name = name;
    this.factory = factory;
    if (factory === void 0) throw new Error("this platform has no IndexedDB: use MemoryClientStore, or FileClientStore in Node");
  }
  name;
  factory;
  database;
  open() {
    this.database ??= new Promise((resolve, reject) => {
      const request = this.factory.open(this.name, 2);
      request.onupgradeneeded = (event) => {
        const database = request.result;
        if (event.oldVersion < 1) {
          database.createObjectStore(HELD);
          database.createObjectStore(PENDING, { keyPath: "order", autoIncrement: true }).createIndex("id", "id", { unique: true });
        }
        if (event.oldVersion < 2) database.createObjectStore(VALUES);
      };
      request.onsuccess = () => resolve(request.result);
      request.onerror = () => reject(request.error ?? new Error(`IndexedDB ${this.name} could not be opened`));
      request.onblocked = () => reject(new Error(`IndexedDB ${this.name} is held open by an older version of the page`));
    });
    return this.database;
  }
  async load() {
    const database = await this.open();
    const transaction = database.transaction([HELD, PENDING, VALUES], "readonly");
    const held = transaction.objectStore(HELD);
    const [keys, values, pending, changesAt] = await Promise.all([
      done(held.getAllKeys()),
      done(held.getAll()),
      done(transaction.objectStore(PENDING).getAll()),
      done(transaction.objectStore(VALUES).get("changesAt"))
    ]);
    const heldUpTo = {};
    keys.forEach((key, i) => {
      heldUpTo[String(key)] = values[i];
    });
    pending.sort((a, b) => a.order - b.order);
    return { heldUpTo, pendingSends: pending.map(({ order: _order, ...send }) => send), ...changesAt === void 0 ? {} : { changesAt } };
  }
  async setChangesAt(at) {
    const database = await this.open();
    const transaction = database.transaction(VALUES, "readwrite");
    transaction.objectStore(VALUES).put(at, "changesAt");
    await committed(transaction);
  }
  async setHeldUpTo(conversation, seq) {
    const database = await this.open();
    const transaction = database.transaction(HELD, "readwrite");
    const held = transaction.objectStore(HELD);
    const current = await done(held.get(conversation));
    if (current === void 0 || seq > current) held.put(seq, conversation);
    await committed(transaction);
  }
  async addPendingSend(send) {
    const database = await this.open();
    const transaction = database.transaction(PENDING, "readwrite");
    const pending = transaction.objectStore(PENDING);
    const existing = await done(pending.index("id").getKey(send.id));
    if (existing === void 0) pending.add({ ...send });
    await committed(transaction);
  }
  async replacePendingSend(send) {
    const database = await this.open();
    const transaction = database.transaction(PENDING, "readwrite");
    const pending = transaction.objectStore(PENDING);
    const key = await done(pending.index("id").getKey(send.id));
    if (key !== void 0) pending.put({ ...send, order: key });
    await committed(transaction);
  }
  async removePendingSend(id) {
    const database = await this.open();
    const transaction = database.transaction(PENDING, "readwrite");
    const pending = transaction.objectStore(PENDING);
    const key = await done(pending.index("id").getKey(id));
    if (key !== void 0) pending.delete(key);
    await committed(transaction);
  }
  /** Closes the database (a test that opens it again, or a page that signs out and deletes it). */
  async close() {
    if (this.database !== void 0) (await this.database).close();
    this.database = void 0;
  }
};
export {
  CLIENT_FRAME_DEFS,
  Groups,
  IndexedDbClientStore,
  LIMITS,
  MemoryClientStore,
  OrderingBuffer,
  ParleyClient,
  ParleyError,
  SERVER_FRAME_DEFS,
  STABLE_AFTER_MS,
  Timelines,
  decodeClientFrame,
  decodeServerFrame,
  fromBase64,
  isGatewayRefusal,
  jitteredDelay,
  misfit,
  platformWebSocket,
  toBase64
};
