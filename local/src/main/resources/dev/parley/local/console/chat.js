// The local chat page on @parley/client (clients/js): the library keeps the connection, resumes after each reconnect, puts
// each conversation in order once, and keeps the queue of sends in IndexedDB so that a reload sends them, once. This page
// keeps what it shows (messages by seq, receipts, typing, presence) and draws it.
import { IndexedDbClientStore, ParleyClient } from "./lib/parley-client.js";

const $ = (id) => document.getElementById(id);
const view = {
  client: null,
  user: null,
  conversations: new Map(), // id -> {id, kind, name, members, messages: Map(seq -> message), unread, readUpTo, history: promise}
  open: null,
  receipts: new Map(),      // conversation id -> {delivered, read}: how far the others got
  typing: new Map(),        // conversation id -> {user, until}
  presence: new Map(),      // user id -> status
  mediaUrls: new Map(),     // media id -> {url, until} | {failed} | {pending}
  lastTypingSent: 0,
  composing: null,          // {kind: "reply" | "edit", seq}: what the compose box's next send is
};

function showError(text) {
  $("error").textContent = text;
}

function conversation(id) {
  if (!view.conversations.has(id)) {
    view.conversations.set(id, { id, kind: id.startsWith("d:") ? "direct" : "group", name: null, members: [], messages: new Map(), unread: 0,
      readUpTo: 0 });
  }
  return view.conversations.get(id);
}

const others = (c) => c.members.filter((member) => member !== view.user);

function label(c) {
  if (c.name) return c.name;
  if (c.kind === "direct") return c.id.substring(2).split(":").filter((u) => u !== view.user).join(", ") || c.id;
  return c.id;
}

const initials = (text) => text.split(/[\s,:-]+/).filter(Boolean).slice(0, 2).map((part) => part[0].toUpperCase()).join("");
const lastSeq = (c) => Math.max(0, ...c.messages.keys());

// Signing in: remembered in this tab's storage, so that a reload signs in again and the library sends what was queued.
async function signIn(user, device) {
  view.client?.close();
  view.user = user;
  sessionStorage.setItem("parley-user", JSON.stringify({ user, device }));
  const config = await (await fetch("config")).json();
  const client = new ParleyClient({
    url: config.websocket_url, user, device, store: new IndexedDbClientStore(`parley-${user}-${device}`),
    token: async () => {
      const answer = await fetch(`token?user=${encodeURIComponent(user)}&device=${encodeURIComponent(device)}`);
      if (!answer.ok) throw new Error(await answer.text());
      return answer.text();
    },
  });
  view.client = client;
  // For the browser's console: the page's client.
  window.parley = client;
  client.on("state", (change) => stateChanged(change.state, device, change));
  client.on("message", received);
  client.on("conversation", (updated) => {
    const c = conversation(updated.conversation_id);
    Object.assign(c, { kind: updated.kind, name: updated.name ?? null, members: updated.members });
    if (view.open === null) openConversation(c.id);
    render();
  });
  client.on("receipt", (receipt) => {
    const r = view.receipts.get(receipt.conversation_id) ?? { delivered: 0, read: 0 };
    r.delivered = Math.max(r.delivered, receipt.all_delivered_seq ?? receipt.delivered_seq);
    r.read = Math.max(r.read, receipt.all_read_seq ?? receipt.read_seq);
    view.receipts.set(receipt.conversation_id, r);
    renderMessages();
  });
  client.on("reactions", (update) => {
    const message = conversation(update.conversation_id).messages.get(update.seq);
    if (message !== undefined) message.reactions = update.reactions;
    renderMessages();
  });
  client.on("typing", (typing) => {
    if (typing.state === "start") view.typing.set(typing.conversation_id, { user: typing.user_id, until: Date.now() + typing.expires_in_ms });
    else view.typing.delete(typing.conversation_id);
    renderTyping();
  });
  client.on("presence", (presence) => {
    view.presence.set(presence.user_id, presence.status);
    renderPresence();
    renderConversations();
  });
  client.on("sendFailed", ({ error }) => {
    showError(`not sent: ${error.code}: ${error.message}`);
    renderMessages();
  });
  client.on("error", (error) => showError(`${error.code}: ${error.message}`));
  await client.start();
  render();
}

function stateChanged(state, device, change) {
  const status = $("status");
  status.className = `status ${state}`;
  status.textContent = {
    connecting: "connecting",
    syncing: `syncing as ${view.user} (${device})`,
    online: `online as ${view.user} (${device})`,
    offline: `offline (${change.reason.replaceAll("_", " ")}); reconnecting in ${Math.ceil((change.retry_in_ms ?? 0) / 1000)} s`,
    closed: "not connected",
  }[state];
  if (state === "online") {
    showError("");
    loadConversations().catch((error) => showError(error.message));
  }
  renderMessages();
}

async function loadConversations() {
  let cursor;
  do {
    const page = await view.client.conversations(cursor);
    for (const summary of page.conversations) {
      const c = conversation(summary.conversation_id);
      Object.assign(c, { kind: summary.kind, name: summary.name ?? c.name });
      if (view.open !== c.id) c.unread = summary.unread_count;
    }
    cursor = page.next_cursor ?? undefined;
  } while (cursor !== undefined);
  renderConversations();
}

// A change (an edit or a delete for everyone) is an entry of its own: the page applies it to its target, as history lists it.
function applyChange(c, change) {
  const target = c.messages.get(change.relates_to.seq);
  if (target === undefined) return;
  if (change.relates_to.kind === "delete") {
    Object.assign(target, { content: { type: "deleted" }, edited_at: null, reactions: [], mentions: [] });
  } else if (change.relates_to.kind === "edit" && target.content.type !== "deleted" && (target.edited_seq ?? 0) < change.seq) {
    // A media message's edit is its caption; the later edit by seq stays.
    target.content = target.content.media_id ? { ...target.content, body: change.content.body } : change.content;
    target.edited_at = change.server_timestamp;
    target.edited_seq = change.seq;
  }
}

function received(message) {
  const c = conversation(message.conversation_id);
  c.messages.set(message.seq, message);
  if (message.relates_to) {
    applyChange(c, message);
    render();
    return;
  }
  if (view.open === c.id) {
    markRead(c);
  } else if (message.sender_id !== view.user && message.seq > c.readUpTo) {
    c.unread++;
  }
  render();
}

function markRead(c) {
  const seq = lastSeq(c);
  if (seq > c.readUpTo) {
    c.readUpTo = seq;
    view.client.markRead(c.id, seq);
  }
  c.unread = 0;
}

// Opening a conversation: its latest messages from history (the library hands the app only what is new), read receipts
// for what is shown, presence of the others.
function openConversation(id) {
  view.open = id;
  const c = conversation(id);
  markRead(c);
  if (c.members.length === 0 && c.kind === "direct") c.members = c.id.substring(2).split(":");
  const watching = others(c);
  if (watching.length > 0 && watching.length <= 100 && view.client.state === "online") {
    view.client.subscribePresence(watching).catch((error) => showError(error.message));
  }
  if (!c.history && view.client.state === "online") {
    c.history = view.client.history(id, { limit: 50 }).then((batch) => {
      batch.messages.forEach((message) => { if (!c.messages.has(message.seq)) c.messages.set(message.seq, message); });
      markRead(c);
      render();
    }, () => { c.history = undefined; });
  }
  render();
}

function render() {
  renderConversations();
  renderMessages();
  renderTyping();
  renderPresence();
}

function avatar(text, online) {
  const element = document.createElement("span");
  element.className = `avatar${online ? " online" : ""}`;
  element.textContent = initials(text);
  return element;
}

function renderConversations() {
  $("conversations").replaceChildren(...[...view.conversations.values()].map((c) => {
    const item = document.createElement("li");
    item.dataset.id = c.id;
    item.className = c.id === view.open ? "open" : "";
    const name = document.createElement("span");
    name.className = "name";
    name.textContent = label(c);
    const online = c.kind === "direct" && others(c).some((user) => view.presence.get(user) === "online");
    item.append(avatar(label(c), online), name);
    if (c.unread > 0) {
      const badge = document.createElement("span");
      badge.className = "unread";
      badge.textContent = String(c.unread);
      item.append(badge);
    }
    item.onclick = () => openConversation(c.id);
    return item;
  }));
}

const time = (ms) => new Date(ms).toLocaleTimeString([], { hour: "2-digit", minute: "2-digit" });
const TICKS = { sending: "\u2026", sent: "\u2713", delivered: "\u2713\u2713", read: "\u2713\u2713" };

function bubble(message, state) {
  const row = document.createElement("div");
  const mine = message.sender_id === view.user;
  row.className = `message${mine ? " mine" : ""}${state === "sending" ? " pending" : ""}`;
  if (message.seq !== undefined) row.dataset.seq = message.seq;
  const sender = document.createElement("span");
  sender.className = "sender";
  sender.textContent = message.sender_id;
  const body = document.createElement("span");
  body.className = "body";
  const deleted = message.content.type === "deleted";
  // An end-to-end message carries envelopes this page has no key for: it says so rather than show nothing.
  body.textContent = deleted ? "This message was deleted" : message.content.envelopes ? "[end-to-end encrypted message]" : (message.content.body ?? "");
  if (deleted) row.classList.add("deleted");
  row.append(sender, body);
  if (message.reply_to != null && !deleted) row.prepend(quote(message));
  if (message.content.media_id) row.append(mediaElement(message.content));
  if (message.seq !== undefined && !deleted) row.append(reactionBar(message), actions(message, mine));
  const meta = document.createElement("span");
  meta.className = "meta";
  meta.textContent = time(message.server_timestamp ?? Date.now()) + (message.edited_at ? " (edited)" : "");
  if (mine) {
    const receipt = document.createElement("span");
    receipt.className = "receipt";
    receipt.dataset.state = state;
    receipt.title = state;
    receipt.textContent = TICKS[state];
    meta.append(receipt);
  }
  row.append(meta);
  return row;
}

// What a reply answers: the start of that message, as this page holds it.
function quote(message) {
  const line = document.createElement("div");
  line.className = "quote";
  const target = conversation(message.conversation_id).messages.get(message.reply_to);
  const text = target === undefined ? `#${message.reply_to}` : target.content.type === "deleted" ? "a deleted message" : (target.content.body ?? `#${message.reply_to}`);
  line.textContent = `\u21AA ${target?.sender_id ?? ""} ${text.slice(0, 60)}`.trim();
  return line;
}

// Reply to any message; edit (text, or a media message's caption) and delete for everyone one's own. The server says no to an
// edit past its window, or a delete by someone who may not: the library's refusal shows as the page's error.
function actions(message, mine) {
  const bar = document.createElement("span");
  bar.className = "actions";
  const button = (action, title, run) => {
    const made = document.createElement("button");
    made.type = "button";
    made.dataset.action = action;
    made.textContent = title;
    made.onclick = run;
    bar.append(made);
  };
  button("reply", "Reply", () => compose({ kind: "reply", seq: message.seq }, ""));
  if (mine && !message.content.envelopes) {
    button("edit", "Edit", () => compose({ kind: "edit", seq: message.seq }, message.content.body ?? ""));
    button("delete", "Delete", () => queued(view.client.delete(message.conversation_id, message.seq)));
  }
  return bar;
}

// The compose box's next send replies to or edits a message; null makes it a plain message again.
function compose(composing, text) {
  view.composing = composing;
  $("composing").textContent = composing === null ? "" : `${composing.kind === "reply" ? "Replying to" : "Editing"} #${composing.seq} (Esc cancels)`;
  $("compose").value = text;
  $("compose").focus();
}

function queued(outgoing) {
  outgoing.queued.then(renderMessages, (error) => showError(error.message));
  outgoing.acknowledged.catch((error) => showError(`${error.code ?? "not sent"}: ${error.message}`));
}

const QUICK_REACTIONS = ["\u{1F44D}", "\u2764\uFE0F", "\u{1F602}"];

// The message's reaction chips (emoji and count; the user's own marked), and quick reactions: a click on one the user chose
// removes it, another sets it (the server keeps one per user, so a new one replaces the old).
function reactionBar(message) {
  const bar = document.createElement("span");
  bar.className = "reactions";
  const mine = (message.reactions ?? []).find((reaction) => reaction.users.includes(view.user))?.emoji ?? null;
  const chips = (message.reactions ?? []).map((reaction) => ({ emoji: reaction.emoji, count: reaction.count }));
  for (const emoji of QUICK_REACTIONS) if (!chips.some((chip) => chip.emoji === emoji)) chips.push({ emoji, count: 0 });
  for (const chip of chips) {
    const button = document.createElement("button");
    button.type = "button";
    button.className = `chip${chip.emoji === mine ? " mine" : ""}${chip.count === 0 ? " quick" : ""}`;
    button.dataset.emoji = chip.emoji;
    button.textContent = chip.count > 0 ? `${chip.emoji} ${chip.count}` : chip.emoji;
    button.onclick = () => view.client.react(message.conversation_id, message.seq, chip.emoji === mine ? null : chip.emoji)
      .catch((error) => showError(`${error.code ?? "not sent"}: ${error.message}`));
    bar.append(button);
  }
  return bar;
}

function renderMessages() {
  const box = $("messages");
  if (!view.open || !view.client) {
    box.replaceChildren();
    return;
  }
  const c = conversation(view.open);
  $("title").textContent = label(c);
  $("avatar").textContent = initials(label(c));
  const receipts = view.receipts.get(c.id) ?? { delivered: 0, read: 0 };
  const stored = [...c.messages.values()].filter((message) => !message.relates_to).sort((a, b) => a.seq - b.seq).map((message) =>
    bubble(message, message.seq <= receipts.read ? "read" : message.seq <= receipts.delivered ? "delivered" : "sent"));
  // Sends the library holds (queued, or on the wire and not yet acknowledged), also after a reload.
  // Only the messages: an edit or a delete still queued shows when it is applied.
  const pending = view.client.pendingSends.filter((send) => send.conversation_id === c.id).map((send) => JSON.parse(send.frame))
    .filter((frame) => frame.type === "message.send").map((frame) => {
    return bubble({ sender_id: view.user, content: frame.content, server_timestamp: frame.timestamp }, "sending");
  });
  const atBottom = box.scrollHeight - box.scrollTop - box.clientHeight < 40;
  box.replaceChildren(...stored, ...pending);
  if (atBottom || pending.length > 0) box.scrollTop = box.scrollHeight;
}

function renderTyping() {
  const typing = view.open && view.typing.get(view.open);
  $("typing").textContent = typing && typing.until > Date.now() ? `${typing.user} is typing` : "";
}

function renderPresence() {
  if (!view.open) {
    $("presence").textContent = "";
    return;
  }
  const watching = others(conversation(view.open));
  $("presence").textContent = watching.map((user) => `${user}: ${view.presence.get(user) ?? "?"}`).join(", ");
  $("avatar").className = `avatar${watching.some((user) => view.presence.get(user) === "online") ? " online" : ""}`;
}

// The image of a media message: shown from a download grant's URL, asked for once, and again when it runs out.
function mediaElement(content) {
  const known = view.mediaUrls.get(content.media_id);
  if (known?.url && known.until > Date.now()) {
    const image = document.createElement("img");
    image.className = "media";
    image.src = known.url;
    image.alt = content.content_type;
    image.dataset.mediaId = content.media_id;
    return image;
  }
  const placeholder = document.createElement("span");
  placeholder.className = "media-placeholder";
  placeholder.textContent = known?.failed ? `[${content.content_type}: ${known.failed}]` : `[loading ${content.content_type}]`;
  if (!known || (!known.failed && !known.pending) || (known.url && known.until <= Date.now())) {
    view.mediaUrls.set(content.media_id, { pending: true });
    view.client.mediaUrl(content.media_id).then(
      (grant) => view.mediaUrls.set(content.media_id, { url: grant.url, until: grant.expires_at - 30_000 }),
      (error) => view.mediaUrls.set(content.media_id, { failed: error.code ?? error.message }),
    ).then(renderMessages);
  }
  return placeholder;
}

function sendText(event) {
  event.preventDefault();
  const text = $("compose").value;
  if (!view.open || text.trim() === "") return;
  const composing = view.composing;
  queued(composing?.kind === "edit" ? view.client.edit(view.open, composing.seq, { type: "text", body: text })
    : view.client.send(view.open, { type: "text", body: text }, composing?.kind === "reply" ? { replyTo: composing.seq } : {}));
  view.client.typing(view.open, "stop");
  compose(null, "");
}

// An image: a grant, the file posted straight to S3 with the grant's form, then a message naming it.
async function attach() {
  const file = $("attach").files[0];
  $("attach").value = "";
  if (!file || !view.open) return;
  const into = view.open;
  try {
    const content = await view.client.uploadMedia(into, file);
    view.client.send(into, content).queued.then(renderMessages);
  } catch (error) {
    showError(`the image was not sent: ${error.message}`);
  }
}

function typed() {
  if (!view.open || Date.now() - view.lastTypingSent < 1000) return;
  view.lastTypingSent = Date.now();
  view.client.typing(view.open, "start");
}

async function create(making) {
  try {
    const made = await making;
    const c = conversation(made.conversation_id);
    Object.assign(c, { kind: made.kind, name: made.name ?? null, members: made.members });
    openConversation(c.id);
  } catch (error) {
    showError(error.message);
  }
}

$("login-form").onsubmit = (event) => {
  event.preventDefault();
  signIn($("user").value.trim(), $("device").value.trim() || "browser").catch((error) => showError(error.message));
};
$("compose-form").onsubmit = sendText;
$("compose").oninput = typed;
$("compose").onkeydown = (event) => {
  if (event.key === "Escape") compose(null, "");
};
$("attach").onchange = attach;
$("new-direct").onclick = () => {
  const other = $("direct-with").value.trim();
  if (other) create(view.client.createDirect(other));
};
$("new-group").onclick = () => {
  const members = $("group-members").value.split(",").map((member) => member.trim()).filter(Boolean);
  create(view.client.createGroup($("group-name").value.trim(), members));
};
// A network that comes back is tried at once, not after the backoff.
window.addEventListener("online", () => view.client?.reconnect());
setInterval(renderTyping, 500);

const remembered = JSON.parse(sessionStorage.getItem("parley-user") ?? "null");
if (remembered) {
  $("user").value = remembered.user;
  $("device").value = remembered.device;
  signIn(remembered.user, remembered.device).catch((error) => showError(error.message));
}
