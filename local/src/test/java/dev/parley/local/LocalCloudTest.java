package dev.parley.local;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.http.urlconnection.UrlConnectionHttpClient;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;

class LocalCloudTest {

    @Test
    void reportsEveryComponentWithItsTrueState() {
        ByteArrayOutputStream buffer = new ByteArrayOutputStream();
        LocalCloud cloud = new LocalCloud(new PrintStream(buffer, true, StandardCharsets.UTF_8));
        int exit = new CommandLine(cloud).execute("--exit-after-start", "--dynamodb-port", "0");
        String output = buffer.toString(StandardCharsets.UTF_8);

        assertThat(exit).isZero();
        assertThat(output).containsPattern("DynamoDB \\+ Streams emulator +running +http://127\\.0\\.0\\.1:\\d+");
        assertThat(output).containsPattern("API Gateway WebSocket \\+ Management API +not available +not built yet");
        assertThat(output).contains("Started 1 of 5 parts; stopping (--exit-after-start).");
    }

    @Test
    void theDynamoDbItReportsAnswersTheSdk() {
        LocalCloud cloud = new LocalCloud(new PrintStream(new ByteArrayOutputStream()));
        new CommandLine(cloud).parseArgs("--dynamodb-port", "0");
        List<ComponentReport> reports = cloud.startComponents();
        try {
            Matcher endpoint = Pattern.compile("http://[0-9.]+:\\d+").matcher(reports.getFirst().detail());
            assertThat(endpoint.find()).isTrue();
            try (DynamoDbClient client = DynamoDbClient.builder().endpointOverride(URI.create(endpoint.group()))
                    .region(Region.US_EAST_1).httpClient(UrlConnectionHttpClient.create())
                    .credentialsProvider(StaticCredentialsProvider.create(AwsBasicCredentials.create("local", "local"))).build()) {
                assertThat(client.listTables().tableNames()).isEmpty();
            }
        } finally {
            cloud.stopComponents();
        }
    }

    @Test
    void rejectsAnUnknownOptionWithUsage() {
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        CommandLine cli = new CommandLine(new LocalCloud(new PrintStream(new ByteArrayOutputStream())));
        cli.setErr(new java.io.PrintWriter(err, true, StandardCharsets.UTF_8));
        int exit = cli.execute("--no-such-option");
        assertThat(exit).isEqualTo(2);
        assertThat(err.toString(StandardCharsets.UTF_8)).contains("Unknown option: '--no-such-option'");
    }
}
