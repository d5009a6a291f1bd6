package dev.parley.infra;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import software.amazon.awscdk.Environment;
import software.amazon.awscdk.assertions.Annotations;
import software.amazon.awscdk.assertions.Match;
import software.amazon.awscdk.assertions.Template;
import software.amazon.awscdk.cxapi.SynthesisMessage;
import software.amazon.awscdk.services.iam.PolicyStatement;

/**
 * cdk-nag's AwsSolutions pack, which the stack runs at every synth: no finding left neither fixed nor answered with a reason
 * (AcceptedFindings), with push or without, with WebSocket access logs or without. And the pack does bite: a wildcard grant
 * added to the stack is found.
 */
class StackSecurityTest {
    private static final Map<String, Object> EVERYTHING = Map.of(StackSettings.FCM_SECRET, "parley/fcm", StackSettings.APNS_SECRET, "parley/apns",
            StackSettings.WEBSOCKET_ACCESS_LOGS, "true");

    private static List<String> findings(ParleyStack stack) {
        Annotations annotations = Annotations.fromStack(stack);
        List<SynthesisMessage> found = new ArrayList<>(annotations.findError("*", Match.stringLikeRegexp("AwsSolutions-.*")));
        found.addAll(annotations.findWarning("*", Match.stringLikeRegexp("AwsSolutions-.*")));
        return found.stream().map(message -> message.getId() + ": " + message.getEntry().getData()).toList();
    }

    /**
     * Where a deployer's CLI synthesizes: no environment (the template tests), an account and region, a region alone (a profile
     * with no account), and the China partition, whose ARNs begin {@code arn:aws-cn:}.
     */
    private static final List<Environment> ENVIRONMENTS = List.of(Environment.builder().build(),
            Environment.builder().account("123456789012").region("us-east-1").build(), Environment.builder().region("eu-west-1").build(),
            Environment.builder().account("123456789012").region("cn-north-1").build());

    @Test
    void awsSolutionsFindsNothingUnansweredWhateverTheSettingsAndEnvironment() {
        for (Environment environment : ENVIRONMENTS) {
            for (Map<String, Object> context : List.of(Map.<String, Object>of(), EVERYTHING)) {
                assertThat(findings(ParleyStackTest.synthesize(context, environment)))
                        .as("settings " + context + " in " + environment.getAccount() + "/" + environment.getRegion()).isEmpty();
            }
        }
    }

    @Test
    void theEnvironmentsResolveAsTheCliResolvesThem() {
        ParleyStack china = ParleyStackTest.synthesize(EVERYTHING, ENVIRONMENTS.get(3));
        String template = Template.fromStack(china).toJSON().toString();
        assertThat(template).as("the grants name the China partition and region literally").contains("arn:aws-cn:sns:cn-north-1:123456789012:endpoint/")
                .doesNotContain("arn:aws:");
    }

    @Test
    void theAnswersStillBiteInAResolvedEnvironment() {
        ParleyStack stack = ParleyStackTest.synthesize(Map.of(), ENVIRONMENTS.get(1));
        stack.functions().get("fanout").addToRolePolicy(PolicyStatement.Builder.create().actions(List.of("execute-api:ManageConnections"))
                .resources(List.of("arn:aws:execute-api:us-east-1:123456789012:*")).build());
        assertThat(findings(stack)).anySatisfy(finding -> assertThat(finding).contains("AwsSolutions-IAM5")
                .contains("execute-api:us-east-1:123456789012:*"));
    }

    @Test
    void theChecksRunAtSynthAndFindAWildcardGrant() {
        ParleyStack stack = ParleyStackTest.synthesize(Map.of());
        stack.functions().get("fanout").addToRolePolicy(PolicyStatement.Builder.create().actions(List.of("dynamodb:GetItem"))
                .resources(List.of("arn:aws:dynamodb:us-east-1:123456789012:table/*")).build());
        assertThat(findings(stack)).anySatisfy(finding -> assertThat(finding).contains("AwsSolutions-IAM5").contains("table/*"));
    }

    @Test
    void bothApisWriteAnAccessLogWhenAskedAndThePublishApiAlways() {
        for (boolean webSocket : List.of(false, true)) {
            JsonNode resources = new ObjectMapper().valueToTree(Template.fromStack(ParleyStackTest.synthesize(
                    Map.of(StackSettings.WEBSOCKET_ACCESS_LOGS, Boolean.toString(webSocket)))).toJSON()).get("Resources");
            List<JsonNode> logged = new ArrayList<>();
            resources.properties().stream().filter(e -> e.getValue().path("Type").asText().equals("AWS::ApiGatewayV2::Stage"))
                    .map(e -> e.getValue().get("Properties")).filter(stage -> stage.has("AccessLogSettings")).forEach(logged::add);
            assertThat(logged).as("stages with an access log, WebSocket's asked: " + webSocket).hasSize(webSocket ? 2 : 1);
            for (JsonNode stage : logged) {
                JsonNode format = readJson(stage.path("AccessLogSettings").path("Format").asText());
                assertThat(format.path("requestId").asText()).isEqualTo("$context.requestId");
                assertThat(format.has("connectionId") || format.has("caller")).as("who: the connection, or the publisher's ARN").isTrue();
                String group = stage.path("AccessLogSettings").path("DestinationArn").path("Fn::GetAtt").path(0).asText();
                assertThat(resources.path(group).path("Properties").path("RetentionInDays").asInt()).as("kept as long as the functions' logs")
                        .isEqualTo(30);
            }
        }
    }

    private static JsonNode readJson(String text) {
        try {
            return new ObjectMapper().readTree(text);
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }
}
