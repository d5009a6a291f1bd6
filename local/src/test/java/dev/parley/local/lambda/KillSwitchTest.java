package dev.parley.local.lambda;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import org.junit.jupiter.api.Test;

class KillSwitchTest {
    private final KillSwitch kills = new KillSwitch();
    private final String send = FunctionPrincipals.accessKeyId("send");

    @Test
    void aWriteToTheArmedTableKillsTheEnvironmentThatMadeItAndNoOther() {
        kills.arm("send", new KillSwitch.AfterWrite("messages"));
        kills.applied(send, "env-1", "PutItem", List.of("claims"));
        kills.applied(FunctionPrincipals.accessKeyId("other"), "env-9", "PutItem", List.of("messages"));
        kills.applied(send, "env-1", "GetItem", List.of("messages"));
        assertThat(kills.refusal(send, "env-1")).as("reads, other tables and other functions do not fire it").isEmpty();

        kills.applied(send, "env-1", "PutItem", List.of("messages"));

        assertThat(kills.refusal(send, "env-1")).hasValueSatisfying(reason -> assertThat(reason).contains("killed"));
        assertThat(kills.refusal(send, "env-2")).as("the function's other environments live").isEmpty();
        assertThat(kills.refusal(FunctionPrincipals.accessKeyId("other"), "env-1")).isEmpty();
        assertThat(kills.ended("send", "env-2")).isFalse();
        assertThat(kills.ended("send", "env-1")).as("the invocation running there was killed").isTrue();
        assertThat(kills.refusal(send, "env-1")).as("and its threads stay silent after it ended: the process is gone")
                .isPresent();
        assertThat(kills.kills()).isEqualTo(1);
        assertThat(kills.kills(new KillSwitch.AfterWrite("messages"))).isEqualTo(1);

        kills.arm("send", new KillSwitch.AfterPosts(1));
        kills.applied(send, "env-2", "PutItem", List.of("messages"));
        assertThat(kills.ended("send", "env-2")).as("it fires once").isFalse();
    }

    @Test
    void aKillEndingAfterTheSwitchWasArmedAgainIsCountedAtThePointThatFiredIt() {
        kills.arm("send", new KillSwitch.AfterWrite("conversations"));
        kills.applied(send, "env-1", "UpdateItem", List.of("conversations"));
        kills.arm("send", new KillSwitch.AfterWrite("messages"));
        assertThat(kills.ended("send", "env-1")).isTrue();
        assertThat(kills.kills(new KillSwitch.AfterWrite("conversations"))).isEqualTo(1);
        assertThat(kills.kills(new KillSwitch.AfterWrite("messages"))).isZero();
    }

    @Test
    void theNthPostKills() {
        kills.arm("send", new KillSwitch.AfterPosts(2));
        kills.posted(send, "env-1");
        assertThat(kills.refusal(send, "env-1")).isEmpty();
        kills.posted(send, "env-1");
        assertThat(kills.refusal(send, "env-1")).isPresent();
        assertThat(kills.ended("send", "env-1")).isTrue();
        assertThat(kills.kills(new KillSwitch.AfterPosts(2))).isEqualTo(1);
        assertThat(kills.kills(new KillSwitch.AfterPosts(1))).isZero();
        assertThatThrownBy(() -> new KillSwitch.AfterPosts(0)).hasMessageContaining("at least one post");
    }
}
