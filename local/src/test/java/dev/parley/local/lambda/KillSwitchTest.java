package dev.parley.local.lambda;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import org.junit.jupiter.api.Test;

class KillSwitchTest {
    private final KillSwitch kills = new KillSwitch();
    private final String send = FunctionPrincipals.accessKeyId("send");

    @Test
    void aWriteToTheArmedTableKillsTheFunctionUntilItsInvocationsEnd() {
        kills.arm("send", new KillSwitch.AfterWrite("messages"));
        kills.started("send");
        kills.applied(send, "PutItem", List.of("claims"));
        kills.applied(FunctionPrincipals.accessKeyId("other"), "PutItem", List.of("messages"));
        kills.applied(send, "GetItem", List.of("messages"));
        assertThat(kills.refusal(send)).as("reads, other tables and other functions do not fire it").isEmpty();

        kills.applied(send, "PutItem", List.of("messages"));

        assertThat(kills.refusal(send)).hasValueSatisfying(reason -> assertThat(reason).contains("killed"));
        assertThat(kills.refusal(FunctionPrincipals.accessKeyId("other"))).isEmpty();
        assertThat(kills.ended("send")).as("the invocation running then was killed").isTrue();
        assertThat(kills.refusal(send)).as("alive again once it ended").isEmpty();
        assertThat(kills.kills()).isEqualTo(1);

        kills.started("send");
        kills.applied(send, "PutItem", List.of("messages"));
        assertThat(kills.ended("send")).as("it fires once").isFalse();
    }

    @Test
    void theNthPostKills() {
        kills.arm("send", new KillSwitch.AfterPosts(2));
        kills.started("send");
        kills.posted(send);
        assertThat(kills.refusal(send)).isEmpty();
        kills.posted(send);
        assertThat(kills.refusal(send)).isPresent();
        assertThat(kills.ended("send")).isTrue();
        assertThatThrownBy(() -> new KillSwitch.AfterPosts(0)).hasMessageContaining("at least one post");
    }
}
