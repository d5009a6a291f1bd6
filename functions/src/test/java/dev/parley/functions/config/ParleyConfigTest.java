package dev.parley.functions.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.parley.functions.runtime.FunctionEnvironment;
import java.net.URI;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

class ParleyConfigTest {
    private static final Map<String, String> TABLES = Map.of(ParleyConfig.CONNECTIONS_TABLE, "c", ParleyConfig.CONVERSATIONS_TABLE, "v",
            ParleyConfig.MEMBERSHIPS_TABLE, "m", ParleyConfig.MESSAGES_TABLE, "x");

    private static ParleyConfig with(Map<String, String> more) {
        Map<String, String> environment = new HashMap<>(TABLES);
        environment.putAll(more);
        return FunctionEnvironment.with(environment, ParleyConfig::fromEnvironment);
    }

    @Test
    void theLocalCloudIsKnownByItsDynamoDbEndpointAndNamesTheFunctionByItsKey() {
        ParleyConfig local = with(Map.of(ParleyConfig.DYNAMODB_ENDPOINT, "http://127.0.0.1:8000", ParleyConfig.ACCESS_KEY_ID, "fn-send"));
        assertThat(local.localCloud()).contains(new ParleyConfig.LocalCloud(URI.create("http://127.0.0.1:8000"), "fn-send"));
        assertThat(with(Map.of()).localCloud()).as("on AWS").isEmpty();
    }

    @Test
    void aMissingTableOrManagementEndpointIsNamed() {
        assertThatThrownBy(() -> FunctionEnvironment.with(Map.of(), ParleyConfig::fromEnvironment)).hasMessageContaining(ParleyConfig.CONNECTIONS_TABLE);
        assertThatThrownBy(() -> with(Map.of()).requireManagementEndpoint()).hasMessageContaining(ParleyConfig.MANAGEMENT_ENDPOINT);
    }

    @Test
    void theReceiptNoticeIntervalIsASecondUnlessSetAndABadOneIsNamed() {
        assertThat(with(Map.of()).receiptNoticeInterval()).isEqualTo(Duration.ofSeconds(1));
        assertThat(with(Map.of(ParleyConfig.RECEIPT_NOTICE_INTERVAL_MS, "250")).receiptNoticeInterval()).isEqualTo(Duration.ofMillis(250));
        assertThat(Duration.ofMillis(ParleyConfig.LONGEST_RECEIPT_NOTICE_INTERVAL_MS)).as("what the use case accepts")
                .isEqualTo(dev.parley.functions.usecase.ReceiptNotices.LONGEST_INTERVAL);
        assertThat(with(Map.of(ParleyConfig.RECEIPT_NOTICE_INTERVAL_MS, "5000")).receiptNoticeInterval()).isEqualTo(Duration.ofSeconds(5));
        for (String bad : new String[] {"0", "soon", "5001"}) {
            assertThatThrownBy(() -> with(Map.of(ParleyConfig.RECEIPT_NOTICE_INTERVAL_MS, bad))).as(bad)
                    .hasMessageContaining(ParleyConfig.RECEIPT_NOTICE_INTERVAL_MS).hasMessageContaining("'" + bad + "'");
        }
    }

    @Test
    void theFastPathAndTheLogSampleHaveDefaultsAndBadValuesAreNamed() {
        ParleyConfig defaults = with(Map.of());
        assertThat(defaults.fastPathMaxConnections()).isEqualTo(ParleyConfig.DEFAULT_FAST_PATH_MAX_CONNECTIONS);
        assertThat(defaults.fastPathWindow()).isEqualTo(ParleyConfig.DEFAULT_FAST_PATH_WINDOW);
        assertThat(defaults.logSamplePercent()).as("the local cloud logs every message").isEqualTo(100);
        ParleyConfig set = with(Map.of(ParleyConfig.FAST_PATH_MAX_CONNECTIONS, "0", ParleyConfig.FAST_PATH_WINDOW_MS, "250",
                ParleyConfig.LOG_SAMPLE_PERCENT, "1"));
        assertThat(set.fastPathMaxConnections()).as("off").isZero();
        assertThat(set.fastPathWindow()).isEqualTo(Duration.ofMillis(250));
        assertThat(set.logSamplePercent()).isEqualTo(1);
        Map<String, String[]> bad = Map.of(ParleyConfig.FAST_PATH_MAX_CONNECTIONS, new String[] {"1", "257", "-1", "many"},
                ParleyConfig.FAST_PATH_WINDOW_MS, new String[] {"0", "1001", "soon"},
                ParleyConfig.LOG_SAMPLE_PERCENT, new String[] {"-1", "101", "all"});
        bad.forEach((variable, values) -> {
            for (String value : values) {
                assertThatThrownBy(() -> with(Map.of(variable, value))).as(variable + "=" + value).hasMessageContaining(variable)
                        .hasMessageContaining(value);
            }
        });
    }

    @Test
    void thePushWindowHasADefaultAndBadValuesAreNamed() {
        assertThat(FunctionEnvironment.with(Map.of(), ParleyConfig::pushWindow)).isEqualTo(ParleyConfig.DEFAULT_PUSH_WINDOW);
        assertThat(FunctionEnvironment.with(Map.of(ParleyConfig.PUSH_WINDOW_MS, "5000"), ParleyConfig::pushWindow)).isEqualTo(Duration.ofSeconds(5));
        for (String value : new String[] {"0", "3600001", "20s"}) {
            assertThatThrownBy(() -> FunctionEnvironment.with(Map.of(ParleyConfig.PUSH_WINDOW_MS, value), ParleyConfig::pushWindow))
                    .as(value).hasMessageContaining(ParleyConfig.PUSH_WINDOW_MS).hasMessageContaining(value);
        }
    }

    @Test
    void theConnectionLeaseOutlivesTheGatewaysIdleTimeoutUnlessSetAndBadValuesAreNamed() {
        assertThat(FunctionEnvironment.with(Map.of(), ParleyConfig::connectionLease)).isEqualTo(ParleyConfig.DEFAULT_CONNECTION_LEASE)
                .as("API Gateway closes a connection idle for 10 minutes; a lease must not end before").isGreaterThan(Duration.ofMinutes(10));
        assertThat(FunctionEnvironment.with(Map.of(ParleyConfig.CONNECTION_LEASE_MS, "2000"), ParleyConfig::connectionLease))
                .isEqualTo(Duration.ofSeconds(2));
        for (String value : new String[] {"999", "7200001", "15m"}) {
            assertThatThrownBy(() -> FunctionEnvironment.with(Map.of(ParleyConfig.CONNECTION_LEASE_MS, value), ParleyConfig::connectionLease))
                    .as(value).hasMessageContaining(ParleyConfig.CONNECTION_LEASE_MS).hasMessageContaining(value);
        }
    }

    @Test
    void theRedeliveryTimeoutAndAttemptsHaveDefaultsAndBadValuesAreNamed() {
        assertThat(FunctionEnvironment.with(Map.of(), ParleyConfig::redeliveryTimeout)).isEqualTo(Duration.ofSeconds(30));
        assertThat(FunctionEnvironment.with(Map.of(), ParleyConfig::redeliveryAttempts)).isEqualTo(5);
        assertThat(FunctionEnvironment.with(Map.of(ParleyConfig.REDELIVERY_TIMEOUT_SECONDS, "900"), ParleyConfig::redeliveryTimeout))
                .as("SQS's longest delay").isEqualTo(Duration.ofMinutes(15));
        for (String value : new String[] {"0", "901", "30s"}) {
            assertThatThrownBy(() -> FunctionEnvironment.with(Map.of(ParleyConfig.REDELIVERY_TIMEOUT_SECONDS, value), ParleyConfig::redeliveryTimeout))
                    .as(value).hasMessageContaining(ParleyConfig.REDELIVERY_TIMEOUT_SECONDS).hasMessageContaining(value);
        }
        for (String value : new String[] {"0", "21", "five"}) {
            assertThatThrownBy(() -> FunctionEnvironment.with(Map.of(ParleyConfig.REDELIVERY_ATTEMPTS, value), ParleyConfig::redeliveryAttempts))
                    .as(value).hasMessageContaining(ParleyConfig.REDELIVERY_ATTEMPTS).hasMessageContaining(value);
        }
    }
}
