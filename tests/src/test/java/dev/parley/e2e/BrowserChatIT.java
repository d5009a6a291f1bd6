package dev.parley.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.parley.client.ConnectionState;
import dev.parley.client.ParleyClient;
import dev.parley.client.ParleyListener;
import dev.parley.model.Content;
import dev.parley.model.ConversationId;
import dev.parley.model.DeviceId;
import dev.parley.model.Message;
import dev.parley.model.UserId;
import java.io.File;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.Test;
import org.openqa.selenium.By;
import org.openqa.selenium.JavascriptExecutor;
import org.openqa.selenium.StaleElementReferenceException;
import org.openqa.selenium.OutputType;
import org.openqa.selenium.WebDriver;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.chrome.ChromeDriverService;
import org.openqa.selenium.chrome.ChromeOptions;
import org.openqa.selenium.support.ui.WebDriverWait;

/**
 * The local chat page, built on the TypeScript client's browser bundle, in real headless Chromium: two browser sessions chat
 * with each other and with the Java client library, with receipts, typing, presence and an image (uploaded to the local S3
 * through a grant, shown from a download grant); and a message queued offline survives page reloads and arrives once. Needs Debian's {@code chromium} and {@code chromium-driver}; scripts/test installs them
 * when it runs as root, and otherwise this test is skipped saying how to enable it.
 */
class BrowserChatIT extends EndToEndTest {
    static final Path CHROMIUM = Path.of("/usr/bin/chromium");
    static final Path CHROMEDRIVER = Path.of("/usr/bin/chromedriver");
    private static final Duration WAIT = Duration.ofSeconds(20);

    private static WebDriver browser() {
        ChromeOptions options = new ChromeOptions();
        options.setBinary(CHROMIUM.toFile());
        options.addArguments("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--window-size=1200,800");
        ChromeDriverService service = new ChromeDriverService.Builder().usingDriverExecutable(CHROMEDRIVER.toFile()).usingAnyFreePort().build();
        return new ChromeDriver(service, options);
    }

    private static void signIn(WebDriver browser, URI page, String user) {
        browser.get(page.toString());
        browser.findElement(By.id("user")).sendKeys(user);
        browser.findElement(By.id("login")).click();
        until(browser, b -> b.findElement(By.id("status")).getText().startsWith("online"));
    }

    private static void until(WebDriver browser, java.util.function.Function<WebDriver, Boolean> condition) {
        new WebDriverWait(browser, WAIT).ignoring(StaleElementReferenceException.class).until(condition::apply);
    }

    /** The texts of what the selector finds, read in one script: the page redraws its lists whole, so elements go stale. */
    @SuppressWarnings("unchecked")
    private static List<String> texts(WebDriver browser, String selector) {
        return (List<String>) ((JavascriptExecutor) browser).executeScript(
                "return [...document.querySelectorAll(arguments[0])].map(e => e.textContent)", selector);
    }

    /** The receipt state of each of the user's own messages shown: sending, sent, delivered or read (drawn as ticks). */
    @SuppressWarnings("unchecked")
    private static List<String> receipts(WebDriver browser) {
        return (List<String>) ((JavascriptExecutor) browser).executeScript(
                "return [...document.querySelectorAll('#messages .message.mine .receipt')].map(e => e.dataset.state)");
    }

    private static Object script(WebDriver browser, String script) {
        return ((JavascriptExecutor) browser).executeScript(script);
    }

    private static List<String> bodies(WebDriver browser) {
        return texts(browser, "#messages .message .body");
    }

    private static void open(WebDriver browser, String conversationId) {
        String item = "#conversations li[data-id='" + conversationId + "']";
        until(browser, b -> !texts(b, item).isEmpty());
        ((JavascriptExecutor) browser).executeScript("document.querySelector(arguments[0]).click()", item);
    }

    private static void say(WebDriver browser, String text) {
        browser.findElement(By.id("compose")).sendKeys(text);
        browser.findElement(By.id("send")).click();
    }

    private static void await(BooleanSupplier condition, String what) throws InterruptedException {
        long deadline = System.nanoTime() + WAIT.toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("timed out waiting for " + what);
            }
            Thread.sleep(20);
        }
    }

    /** The local cloud's chat page; the test is skipped, saying how to enable it, without Chromium or a local cloud. */
    private URI chatPage() {
        assumeTrue(Files.isExecutable(CHROMIUM) && Files.isExecutable(CHROMEDRIVER), "the browser tests need Debian's chromium and "
                + "chromium-driver: apt-get install chromium chromium-driver (scripts/test installs them when it runs as root)");
        assumeTrue(stack.local().isPresent(), "the chat page is the local cloud's");
        return stack.local().get().endpoints().chatPage().orElseThrow();
    }

    /** A Java client of the user beside the browsers, each message it gets handed to {@code onMessage}. */
    private ParleyClient javaClient(String user, String device, java.util.function.Consumer<Message> onMessage) {
        return ParleyClient.builder(stack.webSocketUrl(), UserId.of(user), DeviceId.of(device), () -> stack.token(user, device))
                .listener(new ParleyListener() {
                    @Override
                    public void onMessage(Message message) {
                        onMessage.accept(message);
                    }
                }).build().start();
    }

    @Test
    void twoBrowsersChatWithEachOtherAndWithTheJavaClient() throws Exception {
        URI page = chatPage();
        String alice = user("alice");
        String bob = user("bob");
        String carol = user("carol");
        List<Message> carolsMessages = new CopyOnWriteArrayList<>();
        WebDriver alicesBrowser = browser();
        WebDriver bobsBrowser = browser();
        ParleyClient carols = javaClient(carol, "laptop", carolsMessages::add);
        try {
            signIn(alicesBrowser, page, alice);
            signIn(bobsBrowser, page, bob);
            String direct = ConversationId.direct(UserId.of(alice), UserId.of(bob)).value();

            alicesBrowser.findElement(By.id("direct-with")).sendKeys(bob);
            alicesBrowser.findElement(By.id("new-direct")).click();
            open(alicesBrowser, direct);
            say(alicesBrowser, "hello bob");
            open(bobsBrowser, direct);
            until(bobsBrowser, b -> bodies(b).contains("hello bob"));
            until(alicesBrowser, b -> receipts(b).equals(List.of("read")));
            assertThat(alicesBrowser.findElement(By.id("presence")).getText()).as("bob is online").contains(bob + ": online");

            bobsBrowser.findElement(By.id("compose")).sendKeys("typing a reply");
            until(alicesBrowser, b -> b.findElement(By.id("typing")).getText().equals(bob + " is typing"));
            bobsBrowser.findElement(By.id("send")).click();
            until(alicesBrowser, b -> bodies(b).equals(List.of("hello bob", "typing a reply")));

            // Alice attaches an image: a grant, the file posted from the page straight to the local S3, a message naming it; both
            // pages show it from a download grant.
            Path photo = Files.createTempFile("parley-photo", ".png");
            java.awt.image.BufferedImage image = new java.awt.image.BufferedImage(64, 48, java.awt.image.BufferedImage.TYPE_INT_RGB);
            java.awt.Graphics2D paint = image.createGraphics();
            paint.setColor(new java.awt.Color(0x2e, 0x86, 0xc1));
            paint.fillRect(0, 0, 64, 48);
            paint.dispose();
            javax.imageio.ImageIO.write(image, "png", photo.toFile());
            alicesBrowser.findElement(By.id("attach")).sendKeys(photo.toAbsolutePath().toString());
            String shown = "const i = document.querySelector('#messages img.media'); return i !== null && i.complete && i.naturalWidth === 64;";
            until(bobsBrowser, b -> Boolean.TRUE.equals(((JavascriptExecutor) b).executeScript(shown)));
            until(alicesBrowser, b -> Boolean.TRUE.equals(((JavascriptExecutor) b).executeScript(shown)));
            Path shots = Path.of("target", "failsafe-reports");
            Files.createDirectories(shots);
            Files.copy(((org.openqa.selenium.TakesScreenshot) bobsBrowser).getScreenshotAs(OutputType.FILE).toPath(),
                    shots.resolve("browser-chat-image-bob.png"), StandardCopyOption.REPLACE_EXISTING);

            await(() -> carols.state() == ConnectionState.ONLINE, "carol online");
            alicesBrowser.findElement(By.id("group-name")).sendKeys("Trio");
            alicesBrowser.findElement(By.id("group-members")).sendKeys(bob + ", " + carol);
            alicesBrowser.findElement(By.id("new-group")).click();
            until(alicesBrowser, b -> b.findElement(By.id("title")).getText().equals("Trio"));
            String group = (String) ((JavascriptExecutor) alicesBrowser).executeScript("return document.querySelector('#conversations li.open').dataset.id");
            say(alicesBrowser, "hi both");
            await(() -> carolsMessages.stream().anyMatch(m -> m.content().body().orElse("").equals("hi both")), "carol's copy");
            long carolHere = carols.send(ConversationId.of(group), Content.text("carol here")).get().seq();
            open(bobsBrowser, group);
            until(bobsBrowser, b -> bodies(b).equals(List.of("hi both", "carol here")));
            until(alicesBrowser, b -> bodies(b).equals(List.of("hi both", "carol here")));
            say(bobsBrowser, "bob too");
            await(() -> carolsMessages.stream().map(m -> m.content().body().orElse("")).toList().equals(List.of("hi both", "carol here", "bob too")),
                    "carol sees bob's, in order");

            // Reactions: bob's from his page, carol's from the Java client; alice's page shows both chips with their counts.
            long hiBoth = carolsMessages.stream().filter(m -> m.content().body().orElse("").equals("hi both")).findFirst().orElseThrow().seq();
            String bobsThumb = "#messages .message[data-seq='" + hiBoth + "'] .chip[data-emoji='\uD83D\uDC4D']";
            until(bobsBrowser, b -> !texts(b, bobsThumb).isEmpty());
            script(bobsBrowser, "document.querySelector(\"" + bobsThumb + "\").click()");
            carols.react(ConversationId.of(group), hiBoth, java.util.Optional.of(dev.parley.model.Emoji.of("\u2764\uFE0F"))).get();
            String chips = "#messages .message[data-seq='" + hiBoth + "'] .chip:not(.quick)";
            until(alicesBrowser, b -> texts(b, chips).containsAll(List.of("\uD83D\uDC4D 1", "\u2764\uFE0F 1")));
            until(bobsBrowser, b -> texts(b, chips).containsAll(List.of("\uD83D\uDC4D 1", "\u2764\uFE0F 1")));

            // Alice's other device edits her message and, as the group's admin, deletes carol's: both pages show the edit, "(edited)"
            // and the tombstone, and no change entry of their own.
            try (var alicesOther = connect(alice, "other")) {
                alicesOther.send(new dev.parley.protocol.ClientFrame.MessageEdit(dev.parley.model.ClientMessageId.random(), ConversationId.of(group),
                        hiBoth, Content.text("hi both, edited"), 1));
                alicesOther.send(new dev.parley.protocol.ClientFrame.MessageDelete(dev.parley.model.ClientMessageId.random(), ConversationId.of(group),
                        carolHere, 1));
                for (WebDriver pageOf : List.of(alicesBrowser, bobsBrowser)) {
                    until(pageOf, b -> bodies(b).equals(List.of("hi both, edited", "This message was deleted", "bob too")));
                    until(pageOf, b -> texts(b, "#messages .message[data-seq='" + hiBoth + "'] .meta").getFirst().contains("(edited)"));
                }
            }

            // Bob, from his page: a reply to alice's message, an edit of his own, and a delete of the reply. Both pages show the
            // reply's quote, the edit and the tombstone; the actions go through the library's queue.
            script(bobsBrowser, "document.querySelector(\"#messages .message[data-seq='" + hiBoth + "'] button[data-action='reply']\").click()");
            until(bobsBrowser, b -> b.findElement(By.id("composing")).getText().startsWith("Replying to #" + hiBoth));
            say(bobsBrowser, "nice");
            for (WebDriver pageOf : List.of(alicesBrowser, bobsBrowser)) {
                until(pageOf, b -> bodies(b).equals(List.of("hi both, edited", "This message was deleted", "bob too", "nice")));
                until(pageOf, b -> texts(b, "#messages .message .quote").stream().anyMatch(q -> q.contains("hi both, edited")));
            }
            long bobToo = carolsMessages.stream().filter(m -> m.content().body().orElse("").equals("bob too")).findFirst().orElseThrow().seq();
            script(bobsBrowser, "document.querySelector(\"#messages .message[data-seq='" + bobToo + "'] button[data-action='edit']\").click()");
            until(bobsBrowser, b -> b.findElement(By.id("compose")).getAttribute("value").equals("bob too"));
            bobsBrowser.findElement(By.id("compose")).sendKeys("!");
            bobsBrowser.findElement(By.id("send")).click();
            String nice = "const m = [...document.querySelectorAll('#messages .message')].find(e => e.querySelector('.body').textContent === 'nice');"
                    + " m.querySelector(\"button[data-action='delete']\").click();";
            until(bobsBrowser, b -> bodies(b).contains("bob too!"));
            script(bobsBrowser, nice);
            for (WebDriver pageOf : List.of(alicesBrowser, bobsBrowser)) {
                until(pageOf, b -> bodies(b).equals(List.of("hi both, edited", "This message was deleted", "bob too!", "This message was deleted")));
                until(pageOf, b -> texts(b, "#messages .message[data-seq='" + bobToo + "'] .meta").getFirst().contains("(edited)"));
            }
            assertThat(texts(alicesBrowser, "#messages .message.mine button[data-action='edit']")).as("alice may edit her own only")
                    .hasSize(1);

            Path report = Path.of("target", "failsafe-reports");
            Files.createDirectories(report);
            for (var shot : List.of(java.util.Map.entry("alice", alicesBrowser), java.util.Map.entry("bob", bobsBrowser))) {
                File png = ((org.openqa.selenium.TakesScreenshot) shot.getValue()).getScreenshotAs(OutputType.FILE);
                Files.copy(png.toPath(), report.resolve("browser-chat-" + shot.getKey() + ".png"), StandardCopyOption.REPLACE_EXISTING);
            }
        } finally {
            carols.close();
            alicesBrowser.quit();
            bobsBrowser.quit();
        }
    }

    @Test
    void aMessageQueuedOfflineSurvivesPageReloadsAndArrivesOnce() throws Exception {
        URI page = chatPage();
        String alice = user("alice");
        String bob = user("bob");
        List<String> bobsTexts = new CopyOnWriteArrayList<>();
        ParleyClient bobs = javaClient(bob, "phone", message -> bobsTexts.add(message.content().body().orElse("")));
        ChromeDriver browser = (ChromeDriver) browser();
        try {
            await(() -> bobs.state() == ConnectionState.ONLINE, "bob online");
            signIn(browser, page, alice);
            String direct = ConversationId.direct(UserId.of(alice), UserId.of(bob)).value();
            browser.findElement(By.id("direct-with")).sendKeys(bob);
            browser.findElement(By.id("new-direct")).click();
            open(browser, direct);
            say(browser, "before");
            await(() -> bobsTexts.equals(List.of("before")), "bob's first");

            // Offline: no token can be had (nor a WebSocket opened: its URL carries the token), and the connection is dropped.
            browser.executeCdpCommand("Network.enable", Map.of());
            browser.executeCdpCommand("Network.setBlockedURLs", Map.of("urls", List.of("*token*")));
            script(browser, "window.parley.reconnect()");
            until(browser, b -> b.findElement(By.id("status")).getText().startsWith("offline"));
            say(browser, "queued across a reload");
            until(browser, b -> Long.valueOf(1).equals(script(b, "return window.parley.pendingCount")));
            until(browser, b -> receipts(b).contains("sending"));

            browser.navigate().refresh();
            until(browser, b -> b.findElement(By.id("status")).getText().startsWith("offline"));
            assertThat(script(browser, "return window.parley.pendingCount")).as("the queue, read back from IndexedDB").isEqualTo(1L);
            browser.navigate().refresh();
            until(browser, b -> Long.valueOf(1).equals(script(b, "return window.parley !== undefined ? window.parley.pendingCount : -1")));
            Thread.sleep(500);
            assertThat(bobsTexts).as("nothing left the page while it was offline").containsExactly("before");

            browser.executeCdpCommand("Network.setBlockedURLs", Map.of("urls", List.of()));
            // As the browser does when the network comes back: the page reconnects at once, not after its backoff.
            script(browser, "window.dispatchEvent(new Event('online'))");
            until(browser, b -> b.findElement(By.id("status")).getText().startsWith("online"));
            await(() -> bobsTexts.size() == 2, "the queued message at bob's");
            Thread.sleep(1000);
            assertThat(bobsTexts).as("sent after two reloads, stored once").containsExactly("before", "queued across a reload");
            until(browser, b -> Long.valueOf(0).equals(script(b, "return window.parley.pendingCount")));
            open(browser, direct);
            until(browser, b -> bodies(b).equals(List.of("before", "queued across a reload")));
            Path report = Path.of("target", "failsafe-reports");
            Files.createDirectories(report);
            Files.copy(browser.getScreenshotAs(OutputType.FILE).toPath(), report.resolve("browser-chat-after-reload.png"), StandardCopyOption.REPLACE_EXISTING);
        } finally {
            bobs.close();
            browser.quit();
        }
    }
}
