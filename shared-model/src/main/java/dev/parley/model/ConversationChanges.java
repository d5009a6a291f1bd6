package dev.parley.model;

import java.util.Objects;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * What a {@code conversation.update} changes. Each field is absent when the request leaves it as it is; for those that can be
 * cleared, the inner value is empty when the request sets it to null (no description, no avatar, messages that do not
 * disappear). At least one field is named.
 */
public record ConversationChanges(Optional<String> name, Optional<Optional<String>> description, Optional<Optional<MediaId>> avatarMediaId,
                                  Optional<ConversationSettings.Audience> send, Optional<ConversationSettings.Audience> addMembers,
                                  Optional<OptionalLong> disappearingSeconds) {
    public ConversationChanges {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(description, "description");
        Objects.requireNonNull(avatarMediaId, "avatar_media_id");
        Objects.requireNonNull(send, "send");
        Objects.requireNonNull(addMembers, "add_members");
        Objects.requireNonNull(disappearingSeconds, "disappearing_seconds");
        name.ifPresent(Conversation::requireValidName);
        description.flatMap(d -> d).ifPresent(Conversation::requireValidDescription);
        // Checked here as well as where it is applied, so that a bad value is refused before anything is read.
        disappearingSeconds.ifPresent(seconds -> ConversationSettings.DEFAULT.withDisappearingSeconds(seconds));
        if (name.isEmpty() && description.isEmpty() && avatarMediaId.isEmpty() && send.isEmpty() && addMembers.isEmpty()
                && disappearingSeconds.isEmpty()) {
            throw new InvalidFieldException("settings", "a conversation.update names at least one of name, description, avatar_media_id, settings");
        }
    }

    /** Whether only the disappearing time changes: the one change either member of a direct conversation may make. */
    public boolean onlyDisappearing() {
        return name.isEmpty() && description.isEmpty() && avatarMediaId.isEmpty() && send.isEmpty() && addMembers.isEmpty();
    }
}
