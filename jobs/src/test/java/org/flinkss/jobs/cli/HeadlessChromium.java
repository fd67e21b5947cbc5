package org.flinkss.jobs.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.WebSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * Debian's {@code chromium}, headless, driven over the DevTools protocol (a WebSocket, Java's own
 * client): open a page, collect what its console said and every request it made, evaluate
 * JavaScript in it, and take a screenshot of the whole page. Each instance has its own profile
 * folder and a DevTools port the browser chose (no fixed port).
 *
 * <pre>{@code
 * try (HeadlessChromium browser = HeadlessChromium.start(dir)) {
 *     HeadlessChromium.Page page = browser.open(file);
 *     page.consoleErrors(); page.requests(); page.evaluate("document.title"); page.screenshot(png);
 * }
 * }</pre>
 */
final class HeadlessChromium implements AutoCloseable {

    static final Path CHROMIUM = Paths.get("/usr/bin/chromium");

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Duration TIMEOUT = Duration.ofSeconds(60);

    private final Process process;
    private final WebSocket socket;
    private final BlockingQueue<JsonNode> messages = new LinkedBlockingQueue<>();
    private final List<JsonNode> events = new ArrayList<>();
    private int nextId;

    private HeadlessChromium(Process process, URI page) {
        this.process = process;
        this.socket =
                HttpClient.newHttpClient()
                        .newWebSocketBuilder()
                        .buildAsync(page, new Receiver(messages))
                        .join();
    }

    static boolean available() {
        return Files.isExecutable(CHROMIUM);
    }

    /** Starts the browser on a blank page; its profile and log go under {@code dir}. */
    static HeadlessChromium start(Path dir) throws IOException, InterruptedException {
        Path profile = Files.createDirectories(dir.resolve("chromium-profile"));
        Process process =
                new ProcessBuilder(
                                CHROMIUM.toString(),
                                "--headless",
                                "--no-sandbox",
                                "--disable-gpu",
                                "--disable-background-networking",
                                "--disable-component-update",
                                "--disable-sync",
                                "--no-first-run",
                                "--hide-scrollbars",
                                "--user-data-dir=" + profile,
                                "--remote-debugging-port=0",
                                "--window-size=1280,900",
                                "about:blank")
                        .redirectErrorStream(true)
                        .redirectOutput(dir.resolve("chromium.log").toFile())
                        .start();
        try {
            // The browser writes the port it chose (and the browser's path) into its profile.
            Path portFile = profile.resolve("DevToolsActivePort");
            long deadline = System.nanoTime() + TIMEOUT.toNanos();
            while (!(Files.exists(portFile) && Files.readAllLines(portFile).size() >= 2)) {
                if (!process.isAlive() || System.nanoTime() > deadline) {
                    throw new IllegalStateException(
                            "chromium gave no DevTools port; its log: "
                                    + Files.readString(dir.resolve("chromium.log")));
                }
                Thread.sleep(50);
            }
            int port = Integer.parseInt(Files.readAllLines(portFile).get(0).trim());
            return new HeadlessChromium(process, pageTarget(port));
        } catch (IOException | InterruptedException | RuntimeException e) {
            destroy(process);
            throw e;
        }
    }

    private static URI pageTarget(int port) throws IOException, InterruptedException {
        HttpResponse<String> list =
                HttpClient.newHttpClient()
                        .send(
                                HttpRequest.newBuilder(
                                                URI.create(
                                                        "http://127.0.0.1:" + port + "/json/list"))
                                        .timeout(TIMEOUT)
                                        .build(),
                                HttpResponse.BodyHandlers.ofString());
        for (JsonNode target : JSON.readTree(list.body())) {
            if (target.path("type").asText().equals("page")) {
                return URI.create(target.path("webSocketDebuggerUrl").asText());
            }
        }
        throw new IllegalStateException("chromium has no page: " + list.body());
    }

    /** Opens {@code file} and returns once it has loaded and its scripts have run. */
    Page open(Path file) throws InterruptedException {
        for (String domain : List.of("Runtime", "Log", "Network", "Page")) {
            call(domain + ".enable", JSON.createObjectNode());
        }
        events.clear();
        call("Page.navigate", JSON.createObjectNode().put("url", file.toUri().toString()));
        awaitEvent("Page.loadEventFired");
        return new Page(file);
    }

    /** What a page did and shows. */
    final class Page {
        private final Path file;

        private Page(Path file) {
            this.file = file;
        }

        /**
         * The console's errors and warnings, uncaught exceptions, and the browser's own (a refused
         * request, a violated content security policy), as text.
         */
        List<String> consoleErrors() {
            List<String> out = new ArrayList<>();
            for (JsonNode e : events) {
                JsonNode params = e.path("params");
                switch (e.path("method").asText()) {
                    case "Runtime.consoleAPICalled" -> {
                        String type = params.path("type").asText();
                        if (type.equals("error")
                                || type.equals("warning")
                                || type.equals("assert")) {
                            out.add("console." + type + ": " + params.path("args"));
                        }
                    }
                    case "Runtime.exceptionThrown" ->
                            out.add("exception: " + params.path("exceptionDetails"));
                    case "Log.entryAdded" -> {
                        String level = params.path("entry").path("level").asText();
                        if (level.equals("error") || level.equals("warning")) {
                            out.add("log." + level + ": " + params.path("entry").path("text"));
                        }
                    }
                    default -> {}
                }
            }
            return out;
        }

        /** The URL of every request the page made, the page's own first. */
        List<String> requests() {
            return events.stream()
                    .filter(e -> e.path("method").asText().equals("Network.requestWillBeSent"))
                    .map(e -> e.path("params").path("request").path("url").asText())
                    .toList();
        }

        /** The value of a JavaScript expression in the page (JSON-serialisable). */
        JsonNode evaluate(String expression) throws InterruptedException {
            JsonNode result =
                    call(
                            "Runtime.evaluate",
                            JSON.createObjectNode()
                                    .put("expression", expression)
                                    .put("returnByValue", true));
            if (result.has("exceptionDetails")) {
                throw new IllegalStateException(
                        expression + " failed: " + result.path("exceptionDetails"));
            }
            return result.path("result").path("value");
        }

        /** A screenshot of the whole page, as PNG, at 1280 CSS pixels wide. */
        void screenshot(Path png) throws InterruptedException, IOException {
            JsonNode size =
                    call("Page.getLayoutMetrics", JSON.createObjectNode()).path("cssContentSize");
            int height = (int) Math.ceil(size.path("height").asDouble());
            call(
                    "Emulation.setDeviceMetricsOverride",
                    JSON.createObjectNode()
                            .put("width", 1280)
                            .put("height", height)
                            .put("deviceScaleFactor", 1)
                            .put("mobile", false));
            JsonNode shot =
                    call(
                            "Page.captureScreenshot",
                            JSON.createObjectNode()
                                    .put("format", "png")
                                    .put("captureBeyondViewport", true));
            Files.createDirectories(png.toAbsolutePath().getParent());
            Files.write(png, Base64.getDecoder().decode(shot.path("data").asText()));
        }

        @Override
        public String toString() {
            return file.toString();
        }
    }

    /** Sends a command and returns its result; events that arrive meanwhile are kept. */
    private JsonNode call(String method, ObjectNode params) throws InterruptedException {
        int id = ++nextId;
        ObjectNode command = JSON.createObjectNode().put("id", id).put("method", method);
        command.set("params", params);
        socket.sendText(command.toString(), true).join();
        long deadline = System.nanoTime() + TIMEOUT.toNanos();
        while (true) {
            JsonNode message = next(deadline, method);
            if (message.path("id").asInt(-1) == id) {
                if (message.has("error")) {
                    throw new IllegalStateException(method + " failed: " + message.get("error"));
                }
                return message.path("result");
            }
            events.add(message);
        }
    }

    private void awaitEvent(String method) throws InterruptedException {
        if (events.stream().anyMatch(e -> e.path("method").asText().equals(method))) {
            return;
        }
        long deadline = System.nanoTime() + TIMEOUT.toNanos();
        while (true) {
            JsonNode message = next(deadline, method);
            events.add(message);
            if (message.path("method").asText().equals(method)) {
                return;
            }
        }
    }

    private JsonNode next(long deadline, String waitingFor) throws InterruptedException {
        JsonNode message =
                messages.poll(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
        if (message == null) {
            throw new IllegalStateException("chromium did not answer " + waitingFor + " in time");
        }
        return message;
    }

    @Override
    public void close() {
        socket.abort();
        destroy(process);
    }

    private static void destroy(Process process) {
        process.descendants().forEach(ProcessHandle::destroy);
        process.destroy();
        try {
            if (!process.waitFor(10, TimeUnit.SECONDS)) {
                process.descendants().forEach(ProcessHandle::destroyForcibly);
                process.destroyForcibly();
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** Puts each whole message (they may come in parts) on the queue, as JSON. */
    private static final class Receiver implements WebSocket.Listener {
        private final BlockingQueue<JsonNode> messages;
        private final StringBuilder partial = new StringBuilder();

        Receiver(BlockingQueue<JsonNode> messages) {
            this.messages = messages;
        }

        @Override
        public CompletionStage<?> onText(WebSocket socket, CharSequence data, boolean last) {
            partial.append(data);
            if (last) {
                try {
                    messages.add(JSON.readTree(partial.toString()));
                } catch (IOException e) {
                    throw new IllegalStateException("not JSON from chromium: " + partial, e);
                } finally {
                    partial.setLength(0);
                }
            }
            socket.request(1);
            return null;
        }
    }
}
