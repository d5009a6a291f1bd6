package dev.parley.functions.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.parley.functions.usecase.Notifications;
import dev.parley.ports.RateLimits;
import java.time.Duration;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.Test;

class PublishSettingsTest {
    private static final String ROLE = "arn:aws:iam::123456789012:role/services/likes-service";

    @Test
    void theDefaultCategoriesCoalesceLikesAndKeepSecurityCritical() {
        PublishSettings settings = PublishSettings.parse(PublishSettings.DEFAULT_CATEGORIES, "{}");
        assertThat(settings.categories().get("likes").window()).contains(Duration.ofMinutes(10));
        assertThat(settings.categories().get("comments").window()).isEmpty();
        assertThat(settings.categories().get("security").critical()).isTrue();
        assertThat(settings.publisher(ROLE)).as("nobody publishes unless named").isEmpty();
    }

    @Test
    void aRoleIsFoundByTheSessionArnApiGatewayGivesItsCallersWithItsOwnLimitOrTheDefault() {
        PublishSettings settings = PublishSettings.parse(PublishSettings.DEFAULT_CATEGORIES, "{\"" + ROLE + "\":{\"categories\":[\"likes\"],"
                + "\"per_second\":50,\"burst\":500},\"arn:aws:iam::123456789012:user/comments\":[\"comments\",\"likes\"]}");
        Optional<Notifications.Publisher> likes = settings.publisher("arn:aws:sts::123456789012:assumed-role/likes-service/session-42");
        assertThat(likes).contains(new Notifications.Publisher(ROLE, Set.of("likes"), new RateLimits.Limit(50, 500)));
        assertThat(settings.publisher("arn:aws:sts::999999999999:assumed-role/likes-service/s")).as("another account's role").isEmpty();
        assertThat(settings.publisher("arn:aws:iam::123456789012:user/comments")).hasValueSatisfying(p -> {
            assertThat(p.categories()).containsExactlyInAnyOrder("comments", "likes");
            assertThat(p.limit()).isEqualTo(PublishSettings.DEFAULT_LIMIT);
        });
    }

    @Test
    void badSettingsAreRefusedNamingTheVariable() {
        assertThatThrownBy(() -> PublishSettings.parse("[]", "{}")).hasMessageContaining(PublishSettings.CATEGORIES);
        assertThatThrownBy(() -> PublishSettings.parse("{\"likes\":{\"window_seconds\":0}}", "{}")).hasMessageContaining("window_seconds");
        assertThatThrownBy(() -> PublishSettings.parse("{\"Likes!\":{}}", "{}")).hasMessageContaining(PublishSettings.CATEGORIES);
        assertThatThrownBy(() -> PublishSettings.parse("{\"likes\":{}}", "{\"" + ROLE + "\":[\"payments\"]}"))
                .hasMessageContaining(PublishSettings.PUBLISHERS).hasMessageContaining("payments");
        assertThatThrownBy(() -> PublishSettings.parse("{\"likes\":{}}", "{\"" + ROLE + "\":{\"categories\":[],\"per_second\":0}}"))
                .hasMessageContaining(PublishSettings.PUBLISHERS).hasMessageContaining("perSecond");
        assertThatThrownBy(() -> PublishSettings.parse("{\"likes\":{}}", "not json")).hasMessageContaining(PublishSettings.PUBLISHERS);
        assertThatThrownBy(() -> PublishSettings.parse("{\"likes\":{}}", "{\"" + ROLE + "\":{\"categories\":[],\"topics\":\"match:*\"}}"))
                .hasMessageContaining(PublishSettings.PUBLISHERS).hasMessageContaining("topics");
        assertThatThrownBy(() -> PublishSettings.parse("{\"likes\":{}}", "{\"" + ROLE + "\":{\"categories\":[],\"topics\":[\"a/b*\"]}}"))
                .hasMessageContaining(PublishSettings.PUBLISHERS).hasMessageContaining("topics");
    }

    @Test
    void aPublishersTopicGrantsNameKeysPrefixesOrEveryTopic() {
        var publisher = PublishSettings.parse("{\"likes\":{}}", "{\"" + ROLE + "\":{\"categories\":[\"likes\"],\"topics\":[\"match:*\",\"news\"]}}")
                .publisher(ROLE).orElseThrow();
        assertThat(publisher.topics().allows(dev.parley.model.TopicKey.of("match:final"))).isTrue();
        assertThat(publisher.topics().allows(dev.parley.model.TopicKey.of("news"))).isTrue();
        assertThat(publisher.topics().allows(dev.parley.model.TopicKey.of("news:2"))).as("a key, not a prefix").isFalse();
        assertThat(PublishSettings.parse("{\"likes\":{}}", "{\"" + ROLE + "\":[\"likes\"]}").publisher(ROLE).orElseThrow().topics()
                .allows(dev.parley.model.TopicKey.of("news"))).as("no topics named: none").isFalse();
    }
}
