package dev.parley.infra;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import software.amazon.awscdk.services.logs.RetentionDays;

class StackSettingsTest {
    private static final Path ROOT = ParleyCdkApp.repositoryRoot();

    private static StackSettings settings(Map<String, Object> context) {
        return StackSettings.fromContext(context::get, ROOT);
    }

    @Test
    void defaultsAreAProductionStage() {
        StackSettings settings = settings(Map.of());
        assertThat(settings.stackName()).isEqualTo("Parley");
        assertThat(settings.stageName()).isEqualTo("prod");
        assertThat(settings.throttleRate()).isEqualTo(1000);
        assertThat(settings.throttleBurst()).isEqualTo(2000);
        assertThat(settings.logRetention()).isEqualTo(RetentionDays.ONE_MONTH);
        assertThat(settings.retainData()).isTrue();
        assertThat(settings.fcmSecret()).isEmpty();
        assertThat(settings.pushCredentialsRevision()).isZero();
        assertThat(settings.fastPathMaxConnections()).isEqualTo(64);
        assertThat(settings.logSamplePercent()).isEqualTo(1);
        assertThat(settings.pushWindowSeconds()).isEqualTo(20);
        assertThat(settings.functionsJar()).isEqualTo(ROOT.resolve(StackSettings.DEFAULT_FUNCTIONS_JAR));
        assertThat(settings.webSocketAccessLogs()).as("off until the account's API Gateway logging role is set").isFalse();
        assertThat(settings.topicReadAbove()).isEqualTo(10_000);
    }

    @Test
    void contextValuesAreReadWhetherTextOrJson() {
        StackSettings settings = settings(Map.of(StackSettings.STAGE, "dev", StackSettings.THROTTLE_RATE, 50,
                StackSettings.LOG_RETENTION_DAYS, "7", StackSettings.RETAIN_DATA, false, StackSettings.APNS_SECRET, " parley/apns "));
        assertThat(settings.stageName()).isEqualTo("dev");
        assertThat(settings.throttleRate()).isEqualTo(50);
        assertThat(settings.logRetention()).isEqualTo(RetentionDays.ONE_WEEK);
        assertThat(settings.retainData()).isFalse();
        assertThat(settings.apnsSecret()).isEqualTo(Optional.of("parley/apns"));
        assertThat(settings(Map.of(StackSettings.FAST_PATH_MAX_CONNECTIONS, "0")).fastPathMaxConnections()).as("off").isZero();
        assertThat(settings(Map.of(StackSettings.PUSH_WINDOW_SECONDS, "60")).pushWindowSeconds()).isEqualTo(60);
        assertThat(settings(Map.of(StackSettings.TOPIC_READ_ABOVE, "50000")).topicReadAbove()).isEqualTo(50_000);
    }

    @Test
    void badValuesAreRefusedNamingTheirKey() {
        assertThatThrownBy(() -> settings(Map.of(StackSettings.THROTTLE_RATE, "fast"))).hasMessageContaining(StackSettings.THROTTLE_RATE);
        assertThatThrownBy(() -> settings(Map.of(StackSettings.THROTTLE_BURST, "0"))).hasMessageContaining(StackSettings.THROTTLE_BURST);
        assertThatThrownBy(() -> settings(Map.of(StackSettings.LOG_RETENTION_DAYS, "10"))).hasMessageContaining(StackSettings.LOG_RETENTION_DAYS);
        assertThatThrownBy(() -> settings(Map.of(StackSettings.RETAIN_DATA, "yes"))).hasMessageContaining(StackSettings.RETAIN_DATA);
        assertThatThrownBy(() -> settings(Map.of(StackSettings.STAGE, "my stage"))).hasMessageContaining(StackSettings.STAGE);
        assertThatThrownBy(() -> settings(Map.of(StackSettings.MEDIA_MAX_BYTES, "2000000000"))).as("more than a day's bytes: never grantable")
                .hasMessageContaining(StackSettings.MEDIA_MAX_BYTES).hasMessageContaining("media_bytes");
        assertThatThrownBy(() -> settings(Map.of(StackSettings.MEDIA_RETENTION_DAYS, "0"))).hasMessageContaining(StackSettings.MEDIA_RETENTION_DAYS);
        assertThatThrownBy(() -> settings(Map.of(StackSettings.TOPIC_READ_ABOVE, "-1"))).hasMessageContaining(StackSettings.TOPIC_READ_ABOVE);
        assertThatThrownBy(() -> settings(Map.of(StackSettings.MEDIA_CORS_ORIGINS, "chat.example.com"))).hasMessageContaining(StackSettings.MEDIA_CORS_ORIGINS);
        assertThatThrownBy(() -> settings(Map.of(StackSettings.STAGE, "s".repeat(129)))).hasMessageContaining(StackSettings.STAGE);
        assertThatThrownBy(() -> settings(Map.of(StackSettings.THROTTLE_RATE, "0"))).hasMessageContaining(StackSettings.THROTTLE_RATE);
        assertThatThrownBy(() -> settings(Map.of(StackSettings.APNS_SANDBOX, "yes"))).hasMessageContaining(StackSettings.APNS_SANDBOX);
        assertThatThrownBy(() -> settings(Map.of(StackSettings.STACK_NAME, "1parley"))).hasMessageContaining(StackSettings.STACK_NAME);
        assertThatThrownBy(() -> settings(Map.of(StackSettings.STACK_NAME, "parley_dev"))).hasMessageContaining(StackSettings.STACK_NAME);
        assertThat(settings(Map.of(StackSettings.STACK_NAME, "ParleyDev-2")).stackName()).isEqualTo("ParleyDev-2");
        assertThatThrownBy(() -> settings(Map.of(StackSettings.PUSH_CREDENTIALS_REVISION, "-1")))
                .hasMessageContaining(StackSettings.PUSH_CREDENTIALS_REVISION);
        assertThatThrownBy(() -> settings(Map.of(StackSettings.PUSH_CREDENTIALS_REVISION, "v2")))
                .hasMessageContaining(StackSettings.PUSH_CREDENTIALS_REVISION);
        assertThatThrownBy(() -> settings(Map.of(StackSettings.FAST_PATH_MAX_CONNECTIONS, "1")))
                .hasMessageContaining(StackSettings.FAST_PATH_MAX_CONNECTIONS).hasMessageContaining("0 (off) or 2 to 256");
        assertThatThrownBy(() -> settings(Map.of(StackSettings.LOG_SAMPLE_PERCENT, "101"))).hasMessageContaining(StackSettings.LOG_SAMPLE_PERCENT);
        assertThatThrownBy(() -> settings(Map.of(StackSettings.PUSH_WINDOW_SECONDS, "0"))).hasMessageContaining(StackSettings.PUSH_WINDOW_SECONDS);
        assertThatThrownBy(() -> settings(Map.of(StackSettings.FAST_PATH_MAX_CONNECTIONS, "1000")))
                .hasMessageContaining(StackSettings.FAST_PATH_MAX_CONNECTIONS);
        assertThatThrownBy(() -> settings(Map.of(StackSettings.WEBSOCKET_ACCESS_LOGS, "on"))).hasMessageContaining(StackSettings.WEBSOCKET_ACCESS_LOGS);
        // Rate limits: not JSON, not an object, an unknown limit, a malformed one, each refused naming the key.
        for (String bad : List.of("{messages", "[1, 2]", "{\"emails\": \"1/10\"}", "{\"messages\": \"fast\"}", "{\"messages\": \"0/10\"}",
                "{\"connections_per_user\": \"-1\"}")) {
            assertThatThrownBy(() -> settings(Map.of(StackSettings.RATE_LIMITS, bad))).as(bad).isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining(StackSettings.RATE_LIMITS);
        }
        assertThat(settings(Map.of(StackSettings.RATE_LIMITS, Map.of("messages", "2/120"))).rateLimits()).containsEntry("messages", "2/120");
        assertThatThrownBy(() -> settings(Map.of(StackSettings.FUNCTIONS_JAR, "nowhere/parley.jar")))
                .hasMessageContaining("does not exist").hasMessageContaining("mvn");
    }
}
