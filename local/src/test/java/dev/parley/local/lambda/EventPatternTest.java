package dev.parley.local.lambda;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import dev.parley.functions.manifest.Trigger;
import dev.parley.local.dynamodb.server.Json;
import org.junit.jupiter.api.Test;

/** Lambda's event filtering rules the local mappings support, on DynamoDB stream records as Lambda sees them. */
class EventPatternTest {

    private static JsonNode record(String eventName, String pk, String sk) throws Exception {
        return Json.MAPPER.readTree("""
                {"eventName":"%s","eventSource":"aws:dynamodb","dynamodb":{"Keys":{"pk":{"S":"%s"},"sk":{"S":"%s"}},"SizeBytes":120}}"""
                .formatted(eventName, pk, sk));
    }

    @Test
    void theManifestsFiltersMatchTheirEventAndKeyPrefixOnly() throws Exception {
        EventPattern entries = EventPattern.parse(new Trigger.StreamFilter("INSERT", "sk", "N#").pattern());
        assertThat(entries.matches(record("INSERT", "T#news", "N#01HZX"))).isTrue();
        assertThat(entries.matches(record("MODIFY", "T#news", "N#01HZX"))).as("another event").isFalse();
        assertThat(entries.matches(record("INSERT", "T#news", "S#ada"))).as("another prefix").isFalse();
        assertThat(entries.matches(record("INSERT", "N#x", "#"))).as("the prefix on the other key").isFalse();
        assertThat(entries.matches(Json.MAPPER.readTree("{\"eventName\":\"INSERT\"}"))).as("no keys at all").isFalse();
    }

    @Test
    void valuesExistsAndNumbersMatchAsLambdaReadsThem() throws Exception {
        EventPattern pattern = EventPattern.parse("""
                {"eventName":["INSERT","MODIFY"],"dynamodb":{"SizeBytes":[120.0],"NewImage":[{"exists":false}]}}""");
        assertThat(pattern.matches(record("MODIFY", "a", "b"))).isTrue();
        assertThat(pattern.matches(record("REMOVE", "a", "b"))).isFalse();
        assertThat(EventPattern.parse("{\"dynamodb\":{\"Keys\":[{\"exists\":true}]}}").matches(record("INSERT", "a", "b"))).isTrue();
        assertThat(EventPattern.parse("{\"tags\":[\"x\"]}").matches(Json.MAPPER.readTree("{\"tags\":[\"w\",\"x\"]}")))
                .as("an array value matches when one element does").isTrue();
    }

    @Test
    void aPatternTheLocalCloudCannotMatchIsRefusedNamingWhere() {
        assertThatThrownBy(() -> EventPattern.parse("{\"eventName\":[{\"anything-but\":\"REMOVE\"}]}"))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("/eventName");
        assertThatThrownBy(() -> EventPattern.parse("{\"eventName\":\"INSERT\"}"))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("non-empty array");
        assertThatThrownBy(() -> EventPattern.parse("[]")).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> EventPattern.parse("{not json")).isInstanceOf(IllegalArgumentException.class);
    }
}
