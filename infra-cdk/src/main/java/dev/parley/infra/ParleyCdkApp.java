package dev.parley.infra;

import dev.parley.functions.manifest.ParleyManifest;
import java.nio.file.Files;
import java.nio.file.Path;
import software.amazon.awscdk.App;
import software.amazon.awscdk.Environment;
import software.amazon.awscdk.StackProps;

/**
 * The CDK app that {@code cdk.json} runs ({@code npx cdk synth}, {@code scripts/deploy}): one
 * {@link ParleyStack} from Parley's manifest, named by context {@code parley:stackName} (default
 * Parley), in the account and region of the caller's AWS profile.
 */
public final class ParleyCdkApp {
    private ParleyCdkApp() {
    }

    public static void main(String[] args) {
        App app = new App();
        StackSettings settings = StackSettings.fromContext(app.getNode()::tryGetContext, repositoryRoot());
        StackProps props = StackProps.builder()
                .description("Parley: serverless real-time messaging (WebSocket API, Lambda, DynamoDB, SNS push)")
                .env(Environment.builder().account(System.getenv("CDK_DEFAULT_ACCOUNT")).region(System.getenv("CDK_DEFAULT_REGION")).build())
                .build();
        new ParleyStack(app, settings.stackName(), props, ParleyManifest.manifest(), settings);
        app.synth();
    }

    /** The directory holding cdk.json: the CLI runs the app there, but a test or IDE may not. */
    static Path repositoryRoot() {
        Path dir = Path.of("").toAbsolutePath();
        while (dir != null && !Files.exists(dir.resolve("cdk.json"))) {
            dir = dir.getParent();
        }
        if (dir == null) {
            throw new IllegalStateException("cdk.json not found above " + Path.of("").toAbsolutePath() + ": run the app from the repository");
        }
        return dir;
    }
}
