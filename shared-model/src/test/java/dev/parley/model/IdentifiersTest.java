package dev.parley.model;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class IdentifiersTest {

    @Test
    void userIdsAcceptCognitoSubsAndEmails() {
        assertThat(UserId.of("0b6e2c4e-1d1f-4f7a-9a47-64d3b2b7c8e1").value()).hasSize(36);
        assertThat(UserId.of("alice@example.com").value()).isEqualTo("alice@example.com");
    }

    @ParameterizedTest
    @ValueSource(strings = {"", "a b", "a:b", "a#b", "é", "a/b"})
    void userIdsRefuseEmptyAndSeparatorCharacters(String value) {
        assertThatThrownBy(() -> UserId.of(value)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void userIdsAreAtMost64Characters() {
        assertThat(UserId.of("u".repeat(64)).value()).hasSize(64);
        assertThatThrownBy(() -> UserId.of("u".repeat(65))).hasMessage("must be at most 64 characters (user id)");
        assertThatThrownBy(() -> UserId.of(null)).hasMessage("is required");
    }

    @Test
    void connectionIdsAreTheGatewaysBase64Ids() {
        assertThat(ConnectionId.of("L0SM9cOFvHcCIhw=").value()).isEqualTo("L0SM9cOFvHcCIhw=");
        assertThat(ConnectionId.of("a-b_c/d+e").value()).isEqualTo("a-b_c/d+e");
        assertThatThrownBy(() -> ConnectionId.of("")).hasMessage("must not be empty");
        assertThatThrownBy(() -> ConnectionId.of("a b")).hasMessageContaining("connection id");
        assertThatThrownBy(() -> ConnectionId.of("c".repeat(129))).hasMessage("must be at most 128 characters (connection id)");
    }

    @Test
    void deviceIdsDefaultToDefault() {
        assertThat(DeviceId.DEFAULT.value()).isEqualTo("default");
        assertThatThrownBy(() -> DeviceId.of("phone@home")).hasMessageContaining("device id");
    }

    @Test
    void theDirectIdIsTheSameWhicheverMemberAsks() {
        UserId alice = UserId.of("alice");
        UserId bob = UserId.of("bob");
        assertThat(ConversationId.direct(alice, bob)).isEqualTo(ConversationId.direct(bob, alice));
        assertThat(ConversationId.direct(alice, bob).value()).isEqualTo("d:alice:bob");
        assertThat(ConversationId.direct(alice, bob).isDirect()).isTrue();
        RequestId create = RequestId.parse("0b6a4c1e-2f3d-4e5f-8a9b-1c2d3e4f5a6b");
        assertThat(ConversationId.group(create).value()).isEqualTo("g:0b6a4c1e-2f3d-4e5f-8a9b-1c2d3e4f5a6b");
        assertThat(ConversationId.group(create).isDirect()).isFalse();
        assertThatThrownBy(() -> ConversationId.direct(alice, alice)).isInstanceOf(DomainException.class)
                .hasMessage("a direct conversation needs two distinct users");
    }

    @Test
    void aDirectIdNamesItsTwoMembersAndAGroupIdHasNone() {
        UserId first = UserId.of("a.b-c@d+e");
        UserId second = UserId.of("z_9");
        assertThat(ConversationId.direct(second, first).directMembers()).containsExactly(first, second);
        assertThatThrownBy(() -> ConversationId.of("g:team").directMembers()).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("g:team");
    }

    @Test
    void theLongestDirectIdFits() {
        UserId a = UserId.of("a".repeat(64));
        UserId b = UserId.of("b".repeat(64));
        assertThat(ConversationId.direct(a, b).value().length()).isLessThanOrEqualTo(ConversationId.MAX_LENGTH);
    }

    @Test
    void clientIdsAreCanonicalUuids() {
        String canonical = "5f0c8a2e-8a6b-4a53-9a55-0f5b8c3f6d21";
        assertThat(ClientMessageId.parse(canonical).toString()).isEqualTo(canonical);
        assertThat(ClientMessageId.parse(canonical.toUpperCase())).isEqualTo(ClientMessageId.parse(canonical));
        assertThatThrownBy(() -> ClientMessageId.parse("1-1-1-1-1")).hasMessageContaining("canonical form");
        assertThatThrownBy(() -> RequestId.parse(canonical + "0")).hasMessageContaining("canonical form");
        assertThatThrownBy(() -> RequestId.parse("{" + canonical + "}")).hasMessageContaining("canonical form");
    }
}
