package dev.parley.model;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.Test;

class EmojiTest {
    @ParameterizedTest
    @ValueSource(strings = {
            "\uD83D\uDC4D", // thumbs up
            "\uD83D\uDC4D\uD83C\uDFFD", // thumbs up, medium skin tone
            "\u2764\uFE0F", // red heart with its emoji presentation selector
            "\uD83C\uDDF3\uD83C\uDDF4", // flag: Norway
            "1\uFE0F\u20E3", // keycap one
            "\uD83D\uDC68\u200D\uD83D\uDC69\u200D\uD83D\uDC67\u200D\uD83D\uDC66", // family: man, woman, girl, boy
            "\uD83C\uDFF4\uDB40\uDC67\uDB40\uDC62\uDB40\uDC73\uDB40\uDC63\uDB40\uDC74\uDB40\uDC7F", // flag: Scotland (tag sequence)
            "\uD83D\uDE02" // face with tears of joy
    })
    void oneEmojiIsOne(String value) {
        assertThat(Emoji.of(value).value()).isEqualTo(value);
    }

    @ParameterizedTest
    @ValueSource(strings = {
            "ok", // text
            "a", "1", "#", // letters, and digits that are emoji only as keycaps
            "\uD83D\uDC4D\uD83D\uDC4D", // two emoji
            "\uD83D\uDC4D ", // an emoji and a space
            "\uD83C\uDDF3", // half a flag
            "e\u0301", // a letter with an accent: one grapheme, not an emoji
            "\u00E9" // é
    })
    void anythingElseIsRefusedNamingTheField(String value) {
        assertThatThrownBy(() -> Emoji.of(value)).isInstanceOfSatisfying(InvalidFieldException.class,
                refused -> assertThat(refused.field()).isEqualTo("emoji"));
    }

    @Test
    void emptyAndTooLongAreRefused() {
        assertThatThrownBy(() -> Emoji.of("")).isInstanceOf(InvalidFieldException.class).hasMessageContaining("emoji");
        String longJoin = String.join("\u200D", List.of("\uD83D\uDC68", "\uD83D\uDC69", "\uD83D\uDC67", "\uD83D\uDC66", "\uD83D\uDC68",
                "\uD83D\uDC69", "\uD83D\uDC67", "\uD83D\uDC66", "\uD83D\uDC68", "\uD83D\uDC69", "\uD83D\uDC67", "\uD83D\uDC66", "\uD83D\uDC68"));
        assertThatThrownBy(() -> Emoji.of(longJoin)).isInstanceOf(InvalidFieldException.class).hasMessageContaining("bytes");
    }

    @Test
    void listedReactionsCountExactlyAndNameTheNewestTen() {
        Emoji up = Emoji.of("\uD83D\uDC4D");
        Emoji heart = Emoji.of("\u2764\uFE0F");
        List<Reaction> reactions = new java.util.ArrayList<>();
        for (int i = 0; i < 12; i++) {
            reactions.add(new Reaction(UserId.of("u" + i), up, 100 + i));
        }
        reactions.add(new Reaction(UserId.of("h1"), heart, 50));
        List<ReactionCount> listed = ReactionCount.of(reactions);
        assertThat(listed).extracting(ReactionCount::emoji).containsExactly(up, heart);
        assertThat(listed.getFirst().count()).isEqualTo(12);
        assertThat(listed.getFirst().users()).hasSize(ReactionCount.MAX_USERS).first().isEqualTo(UserId.of("u11"));
        assertThat(listed.get(1).users()).containsExactly(UserId.of("h1"));
        assertThat(ReactionCount.of(List.of())).isEmpty();
    }
}
