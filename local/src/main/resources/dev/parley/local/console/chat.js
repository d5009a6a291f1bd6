// The local chat page: a Parley client in plain JavaScript, against the local cloud's WebSocket API.
// It keeps per conversation the messages by seq (so a message that arrives twice or out of order is shown once, in place),
// resumes with sync.request after each reconnect, and resends a message not yet acknowledged with its own id.
"use strict";

const state = {
  socket: null, user: null, device: null, wsUrl: null, online: false,
  conversations: new Map(),   // id -> {id, kind, name, members, messages: Map(seq -> message), unread, readUpTo}
  open: null,                 // the open conversation's id
  pending: new Map(),         // message id -> {conversation_id, content, timestamp, attempt, timer}: sent, not yet acknowledged
  receipts: new Map(),        // conversation id -> {delivered, read}: how far the others got
  typing: new Map(),          // conversation id -> {user, until}
  presence: new Map(),        // user id -> presence entry
  lastTypingSent: 0,
  reconnectDelay: 250,
  gatewayRefusals: 0,         // rounds of API Gateway refusals since the last ack: each round's resends wait twice as long
  syncTimer: null,            // a refused sync.request's second asking, waiting
  uploads: [],                // images waiting for their upload grants; only the first is asked for at a time (grants name no request)
  mediaUrls: new Map(),       // media id -> {url, until}: a download grant's URL while it lasts
  downloads: [],              // media ids waiting for their download grants; only the first is asked for at a time
};

const $ = (id) => document.getElementById(id);

function uuid() {
  return crypto.randomUUID ? crypto.randomUUID() : "10000000-1000-4000-8000-100000000000".replace(/[018]/g,
      c => (c ^ crypto.getRandomValues(new Uint8Array(1))[0] & 15 >> c / 4).toString(16));
}

function send(frame) {
  if (state.socket && state.socket.readyState === WebSocket.OPEN) {
    state.socket.send(JSON.stringify(frame));
  }
}

// A pending message on the wire, with its own id; a resend says which attempt it is, so the server takes no seq for it when
// the first attempt was stored.
function transmit(id) {
  const pending = state.pending.get(id);
  if (!pending) return;
  clearTimeout(pending.timer);
  pending.timer = null;
  pending.attempt++;
  const frame = {type: "message.send", id, conversation_id: pending.conversation_id, content: pending.content, timestamp: pending.timestamp};
  if (pending.attempt > 1) frame.attempt = pending.attempt;
  send(frame);
}

// From the upper half of 250 ms doubled per round, at most 8 s.
function backoffDelay(round) {
  const ceiling = Math.min(8000, 250 * 2 ** Math.min(round, 20));
  return ceiling / 2 + Math.random() * ceiling / 2;
}

// Sends it again after the wait, unless a resend is already waiting or it is acknowledged meanwhile. Returns whether it waits.
function resendAfter(id, wait) {
  const pending = state.pending.get(id);
  if (!pending || pending.timer) return false;
  pending.timer = setTimeout(() => {
    pending.timer = null;
    if (state.online && state.pending.has(id)) transmit(id);
  }, wait);
  return true;
}

// API Gateway refused a frame before a function saw it ({"message": "Too Many Requests" | "Internal server error" |
// "Forbidden", "connectionId", "requestId"}: no type, no id of ours): every pending message goes again after a backoff.
function gatewayRefused() {
  const wait = backoffDelay(state.gatewayRefusals);
  let waiting = false;
  state.pending.forEach((pending, id) => { waiting = resendAfter(id, wait) || waiting; });
  // Still syncing: the sync may be what was refused, and the page goes online (and sends) only at its sync.done.
  if (!state.online && state.socket && !state.syncTimer) {
    const socket = state.socket;
    state.syncTimer = setTimeout(() => {
      state.syncTimer = null;
      if (state.socket === socket && !state.online) requestSync();
    }, wait);
    waiting = true;
  }
  if (waiting) state.gatewayRefusals++;
}

// Asks for everything after what the page holds of each conversation.
function requestSync() {
  const held = {};
  state.conversations.forEach(c => { held[c.id] = heldUpTo(c); });
  send({type: "sync.request", state: held});
}

function showError(text) {
  $("error").textContent = text;
}

function conversation(id) {
  if (!state.conversations.has(id)) {
    state.conversations.set(id, {id, kind: id.startsWith("d:") ? "direct" : "group", name: null, members: [], messages: new Map(),
      unread: 0, readUpTo: 0, lastSeq: 0});
  }
  return state.conversations.get(id);
}

// The last seq held with none missing below it, counted from where the conversation starts for this user (the first
// sync.batch's after_seq: where they joined), not from seq 1, which a member who joined later never gets.
function heldUpTo(c) {
  let seq = c.startsAfter || 0;
  while (c.messages.has(seq + 1)) seq++;
  return seq;
}

async function login(event) {
  event.preventDefault();
  state.user = $("user").value.trim();
  state.device = $("device").value.trim() || "browser";
  const config = await (await fetch("config")).json();
  state.wsUrl = config.websocket_url;
  connect();
}

async function connect() {
  $("status").textContent = "connecting";
  const answer = await fetch("token?user=" + encodeURIComponent(state.user) + "&device=" + encodeURIComponent(state.device));
  if (!answer.ok) {
    showError(await answer.text());
    $("status").textContent = "not connected";
    return;
  }
  const token = await answer.text();
  const socket = new WebSocket(state.wsUrl + "?token=" + encodeURIComponent(token));
  state.socket = socket;
  socket.onopen = () => {
    $("status").textContent = "syncing as " + state.user + " (" + state.device + ")";
    state.reconnectDelay = 250;
    state.gatewayRefusals = 0;
    requestSync();
  };
  socket.onmessage = (event) => received(JSON.parse(event.data));
  socket.onclose = () => {
    if (state.socket !== socket) return;
    state.online = false;
    // Every pending message goes again once the next connection has synced.
    state.pending.forEach(pending => { clearTimeout(pending.timer); pending.timer = null; });
    $("status").textContent = "offline; reconnecting";
    setTimeout(connect, state.reconnectDelay);
    state.reconnectDelay = Math.min(state.reconnectDelay * 2, 10000);
  };
}

function received(frame) {
  if (frame.type === undefined && typeof frame.message === "string") return gatewayRefused();
  switch (frame.type) {
    case "message.receive": return addMessages(frame.conversation_id, [frame]);
    case "sync.batch": {
      const c = conversation(frame.conversation_id);
      if (c.startsAfter === undefined) c.startsAfter = frame.after_seq;
      c.lastSeq = Math.max(c.lastSeq, frame.last_seq);
      return addMessages(frame.conversation_id, frame.messages);
    }
    case "sync.done":
      state.online = true;
      $("status").textContent = "online as " + state.user + " (" + state.device + ")";
      state.pending.forEach((pending, id) => transmit(id));
      send({type: "conversation.list"});
      return;
    case "message.ack": {
      const sent = state.pending.get(frame.id);
      state.pending.delete(frame.id);
      state.gatewayRefusals = 0;
      if (sent && sent.timer) clearTimeout(sent.timer);
      if (sent) {
        addMessages(frame.conversation_id, [{id: frame.id, conversation_id: frame.conversation_id, seq: frame.seq, sender_id: state.user,
          content: sent.content, server_timestamp: frame.server_timestamp}]);
      }
      return;
    }
    case "conversation.created":
    case "conversation.updated": {
      const c = conversation(frame.conversation.conversation_id);
      c.kind = frame.conversation.kind;
      c.name = frame.conversation.name || null;
      c.members = frame.conversation.members;
      if (frame.type === "conversation.created") openConversation(c.id);
      renderConversations();
      requestSync();
      return;
    }
    case "conversation.page":
      frame.conversations.forEach(summary => {
        const c = conversation(summary.conversation_id);
        c.kind = summary.kind;
        c.name = summary.name || null;
        c.unread = summary.unread_count;
        c.lastSeq = summary.last_seq;
      });
      return renderConversations();
    case "receipt.update": {
      const r = state.receipts.get(frame.conversation_id) || {delivered: 0, read: 0};
      r.delivered = Math.max(r.delivered, frame.all_delivered_seq ?? frame.delivered_seq);
      r.read = Math.max(r.read, frame.all_read_seq ?? frame.read_seq);
      state.receipts.set(frame.conversation_id, r);
      return renderMessages();
    }
    case "typing.update":
      if (frame.state === "start") {
        state.typing.set(frame.conversation_id, {user: frame.user_id, until: Date.now() + frame.expires_in_ms});
      } else {
        state.typing.delete(frame.conversation_id);
      }
      return renderTyping();
    case "media.upload_grant": {
      const upload = state.uploads.shift();
      askNextUpload();
      return uploadWithGrant(upload, frame);
    }
    case "media.download_grant": {
      state.downloads.shift();
      askNextDownload();
      state.mediaUrls.set(frame.media_id, {url: frame.url, until: frame.expires_at - 30000});
      return renderMessages();
    }
    case "presence.batch": frame.users.forEach(p => state.presence.set(p.user_id, p)); return renderPresence();
    case "presence.update": state.presence.set(frame.presence.user_id, frame.presence); return renderPresence();
    case "error":
      if (frame.ref && state.pending.has(frame.ref)) {
        const inProgress = frame.code === "conflict" && frame.message.includes("still in progress");
        if (frame.code === "rate_limited" || frame.code === "internal" || inProgress) {
          // The same message again, after the wait the server asked for.
          return resendAfter(frame.ref, frame.retry_after_ms ?? (inProgress ? 500 : 1000));
        }
        state.pending.delete(frame.ref);
      }
      if (frame.ref === "media.upload") { state.uploads.shift(); askNextUpload(); }
      if (frame.ref === "media.download") { state.mediaUrls.set(state.downloads.shift(), {failed: frame.code}); askNextDownload(); }
      return showError(frame.code + ": " + frame.message);
    default:
      return;
  }
}

function addMessages(conversationId, messages) {
  const c = conversation(conversationId);
  messages.forEach(m => { if (m.content.type !== "void") c.messages.set(m.seq, m); else c.messages.set(m.seq, null); });
  const held = heldUpTo(c);
  if (held > 0) send({type: "message.delivered", conversation_id: conversationId, seq: held});
  if (state.open === conversationId) {
    markRead(c);
  } else {
    c.unread = [...c.messages.entries()].filter(([seq, m]) => m && seq > c.readUpTo && m.sender_id !== state.user).length;
  }
  renderConversations();
  renderMessages();
}

function markRead(c) {
  const held = heldUpTo(c);
  if (held > c.readUpTo) {
    c.readUpTo = held;
    send({type: "message.read", conversation_id: c.id, seq: held});
  }
  c.unread = 0;
}

function openConversation(id) {
  state.open = id;
  const c = conversation(id);
  markRead(c);
  const others = c.members.filter(m => m !== state.user);
  if (others.length > 0 && others.length <= 100) send({type: "presence.subscribe", user_ids: others, ttl_seconds: 300});
  renderConversations();
  renderMessages();
  renderTyping();
  renderPresence();
}

function label(c) {
  if (c.name) return c.name;
  if (c.kind === "direct") return c.id.substring(2).split(":").filter(u => u !== state.user).join(", ") || c.id;
  return c.id;
}

function renderConversations() {
  const list = $("conversations");
  list.replaceChildren(...[...state.conversations.values()].map(c => {
    const item = document.createElement("li");
    item.dataset.id = c.id;
    item.className = c.id === state.open ? "open" : "";
    item.textContent = label(c);
    if (c.unread > 0) {
      const badge = document.createElement("span");
      badge.className = "unread";
      badge.textContent = "(" + c.unread + ")";
      item.append(badge);
    }
    item.onclick = () => openConversation(c.id);
    return item;
  }));
}

function renderMessages() {
  const box = $("messages");
  if (!state.open) { box.replaceChildren(); return; }
  const c = conversation(state.open);
  $("title").textContent = label(c);
  const receipts = state.receipts.get(c.id) || {delivered: 0, read: 0};
  const rows = [...c.messages.entries()].filter(([, m]) => m).sort((a, b) => a[0] - b[0]).map(([seq, m]) => {
    const row = document.createElement("div");
    row.className = "message" + (m.sender_id === state.user ? " mine" : "");
    row.dataset.seq = seq;
    const sender = document.createElement("span");
    sender.className = "sender";
    sender.textContent = m.sender_id;
    const body = document.createElement("span");
    body.className = "body";
    // An end-to-end message carries envelopes the page has no key for: it says so rather than show nothing.
    body.textContent = m.content.envelopes ? "[end-to-end encrypted message]" : (m.content.body ?? m.content.media_url ?? "");
    row.append(sender, body);
    if (m.content.media_id) row.append(mediaElement(m.content));
    if (m.sender_id === state.user) {
      const receipt = document.createElement("span");
      receipt.className = "receipt";
      receipt.textContent = seq <= receipts.read ? "read" : seq <= receipts.delivered ? "delivered" : "sent";
      row.append(receipt);
    }
    return row;
  });
  box.replaceChildren(...rows);
  box.scrollTop = box.scrollHeight;
}

function renderTyping() {
  const typing = state.open && state.typing.get(state.open);
  $("typing").textContent = typing && typing.until > Date.now() ? typing.user + " is typing" : "";
}

function renderPresence() {
  if (!state.open) { $("presence").textContent = ""; return; }
  const others = conversation(state.open).members.filter(m => m !== state.user);
  $("presence").textContent = others.map(u => {
    const p = state.presence.get(u);
    return u + ": " + (p ? p.status : "?");
  }).join(", ");
}

function sendMessage(event) {
  event.preventDefault();
  const text = $("compose").value;
  if (!state.open || text.trim() === "") return;
  const id = uuid();
  const content = {type: "text", body: text};
  state.pending.set(id, {conversation_id: state.open, content, timestamp: Date.now(), attempt: 0, timer: null});
  transmit(id);
  send({type: "typing", conversation_id: state.open, state: "stop"});
  $("compose").value = "";
}

// An image: asked for a grant, posted straight to S3 with the grant's form, then sent as a message naming it.
function attach() {
  const file = $("attach").files[0];
  $("attach").value = "";
  if (!file || !state.open) return;
  state.uploads.push({file, conversation_id: state.open});
  if (state.uploads.length === 1) askNextUpload();
}

// A connection's frames are handled independently, so two grants may come back in either order, and neither names its
// request: one upload grant and one download grant are asked for at a time, the next once the last is answered.
function askNextUpload() {
  const next = state.uploads[0];
  if (next) send({type: "media.upload", content_type: next.file.type, size: next.file.size, conversation_id: next.conversation_id});
}

function askNextDownload() {
  const next = state.downloads[0];
  if (next) send({type: "media.download", media_id: next});
}

async function uploadWithGrant(upload, grant) {
  if (!upload) return;
  const form = new FormData();
  Object.entries(grant.fields).forEach(([name, value]) => form.append(name, value));
  form.append("file", upload.file);
  const answer = await fetch(grant.url, {method: "POST", body: form});
  if (!answer.ok) return showError("the upload was refused: " + answer.status);
  const id = uuid();
  const content = {type: "image", media_id: grant.media_id, content_type: upload.file.type, size: upload.file.size};
  state.pending.set(id, {conversation_id: upload.conversation_id, content, timestamp: Date.now(), attempt: 0, timer: null});
  transmit(id);
}

// The image of a media message: shown from a download grant's URL, asked for once and again when it runs out.
function mediaElement(content) {
  const known = state.mediaUrls.get(content.media_id);
  if (known && known.url && known.until > Date.now()) {
    const image = document.createElement("img");
    image.className = "media";
    image.src = known.url;
    image.alt = content.content_type;
    image.dataset.mediaId = content.media_id;
    return image;
  }
  const placeholder = document.createElement("span");
  placeholder.className = "media-placeholder";
  placeholder.textContent = known && known.failed ? "[" + content.content_type + ": " + known.failed + "]" : "[loading " + content.content_type + "]";
  if (!known || (!known.failed && !state.downloads.includes(content.media_id))) {
    state.mediaUrls.set(content.media_id, {pending: true});
    state.downloads.push(content.media_id);
    if (state.downloads.length === 1) askNextDownload();
  }
  return placeholder;
}

function typed() {
  if (!state.open || Date.now() - state.lastTypingSent < 1000) return;
  state.lastTypingSent = Date.now();
  send({type: "typing", conversation_id: state.open, state: "start"});
}

function createDirect() {
  const other = $("direct-with").value.trim();
  if (other) send({type: "conversation.create", id: uuid(), kind: "direct", members: [other]});
}

function createGroup() {
  const members = $("group-members").value.split(",").map(m => m.trim()).filter(m => m);
  send({type: "conversation.create", id: uuid(), kind: "group", members, name: $("group-name").value.trim()});
}

$("login-form").onsubmit = login;
$("compose-form").onsubmit = sendMessage;
$("compose").oninput = typed;
$("attach").onchange = attach;
$("new-direct").onclick = createDirect;
$("new-group").onclick = createGroup;
setInterval(renderTyping, 500);
