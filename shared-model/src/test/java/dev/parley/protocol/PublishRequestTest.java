package dev.parley.protocol;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.parley.model.InvalidFieldException;
import dev.parley.model.TopicKey;
import dev.parley.model.UserId;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** The publish body's recipients and topic, and the topics API's body: what each accepts, and the field each refusal names. */
class PublishRequestTest {

    @Test
    void aTopicAloneOrWithNamedRecipientsIsAPublish() {
        PublishRequest topic = PublishRequest.parse("{\"topic\":\"artist:17\",\"category\":\"likes\",\"content\":{\"title\":\"t\"}}");
        assertThat(topic.topic()).contains(TopicKey.of("artist:17"));
        assertThat(topic.recipients()).isEmpty();
        PublishRequest both = PublishRequest.parse("{\"recipients\":[\"ann\",\"bo\"],\"topic\":\"artist:17\",\"category\":\"likes\",\"content\":{\"title\":\"t\"},"
                + "\"actor\":\"bo\"}");
        assertThat(both.recipients()).extracting(UserId::value).containsExactly("ann", "bo");
        assertThat(both.recipientsButActor()).extracting(UserId::value).containsExactly("ann");
        assertThat(both.withoutRecipients().recipients()).isEmpty();
        assertThat(both.withoutRecipients().topic()).isEqualTo(both.topic());
    }

    @Test
    void badRecipientsAndTopicsNameTheirField() {
        Map<String, String> bodies = Map.of(
                "recipients", "{\"category\":\"likes\",\"content\":{\"title\":\"t\"}}",
                "topic", "{\"topic\":\"a/b\",\"category\":\"likes\",\"content\":{\"title\":\"t\"}}",
                "recipients[0]", "{\"recipients\":[\"a b\"],\"topic\":\"x\",\"category\":\"likes\",\"content\":{\"title\":\"t\"}}");
        bodies.forEach((field, body) -> assertThatThrownBy(() -> PublishRequest.parse(body)).as(body)
                .isInstanceOfSatisfying(InvalidFieldException.class, e -> assertThat(e.field()).startsWith(field.replace("[0]", ""))));
        assertThatThrownBy(() -> PublishRequest.parse("{\"topic\":\"" + "t".repeat(129) + "\",\"category\":\"likes\",\"content\":{\"title\":\"t\"}}"))
                .isInstanceOfSatisfying(InvalidFieldException.class, e -> assertThat(e.field()).isEqualTo("topic"));
        assertThatThrownBy(() -> PublishRequest.parse("{\"recipients\":[],\"category\":\"likes\",\"content\":{\"title\":\"t\"}}"))
                .hasMessageContaining("must not be empty");
    }

    @Test
    void theTopicsBodyNamesOneToAThousandDistinctUsers() {
        assertThat(TopicSubscribersRequest.parse("{\"user_ids\":[\"a\",\"b\"]}").userIds()).extracting(UserId::value).containsExactly("a", "b");
        List<String> many = java.util.stream.IntStream.range(0, 1001).mapToObj(i -> "\"u" + i + "\"").toList();
        Map<String, String> bodies = Map.of(
                "user_ids", "{\"user_ids\":[]}",
                "user_ids ", "{\"user_ids\":[\"a\",\"a\"]}",
                "user_ids  ", "{\"user_ids\":[" + String.join(",", many) + "]}",
                "body", "[1]",
                "body ", "");
        bodies.forEach((field, body) -> assertThatThrownBy(() -> TopicSubscribersRequest.parse(body)).as(body)
                .isInstanceOfSatisfying(InvalidFieldException.class, e -> assertThat(e.field()).isEqualTo(field.strip())));
        assertThat(Optional.of(TopicKey.of("a.b_c:d@e+f=g-h"))).isPresent();
    }
}
