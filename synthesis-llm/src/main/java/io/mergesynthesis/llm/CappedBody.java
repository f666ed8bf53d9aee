package io.mergesynthesis.llm;

import java.net.http.HttpResponse;
import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Flow;

/**
 * Reads a provider's body up to a limit and no further. A body longer than that is never held whole: the
 * subscription is cancelled as soon as the limit is passed, which makes the client drop the connection, and the
 * call is read as an answer too large to use. Without it one answer of hundreds of megabytes is enough to take a
 * replica's heap, and the conflict then takes the next replica's.
 */
final class CappedBody implements HttpResponse.BodySubscriber<CappedBody.Read> {

    /**
     * What came of reading one body.
     *
     * @param bytes  the body, whole when {@code whole}; otherwise the first {@code limit} bytes
     * @param whole  false when the body went on past the limit and reading stopped there
     * @param limit  the most that was to be read
     */
    record Read(byte[] bytes, boolean whole, int limit) {
    }

    /** The envelope around an answer: ids, usage, the model's name, a stop reason, or a provider's error object. */
    static final int ENVELOPE_BYTES = 16 * 1024;

    /**
     * The most of a body read for a provider whose answers may be {@code maxAnswerBytes} long: the answer travels
     * as a JSON string inside the envelope (OpenAI's tool arguments are one), where escaping can make it up to
     * twice as long for text as JSON-heavy as an answer is.
     */
    static int limitFor(int maxAnswerBytes) {
        return (int) Math.min(Integer.MAX_VALUE - 8L, 2L * maxAnswerBytes + ENVELOPE_BYTES);
    }

    static HttpResponse.BodyHandler<Read> handler(int limit) {
        return info -> new CappedBody(limit);
    }

    private final int limit;
    private final CompletableFuture<Read> result = new CompletableFuture<>();
    private byte[] buffer = new byte[1024];
    private int size;
    private Flow.Subscription subscription;

    CappedBody(int limit) {
        this.limit = limit;
    }

    @Override
    public CompletionStage<Read> getBody() {
        return result;
    }

    @Override
    public void onSubscribe(Flow.Subscription subscription) {
        this.subscription = subscription;
        subscription.request(1);
    }

    @Override
    public void onNext(List<ByteBuffer> items) {
        if (result.isDone()) {
            return;
        }
        for (ByteBuffer item : items) {
            int room = limit - size;
            if (item.remaining() > room) {
                append(item, room);
                // The rest is neither read nor waited for: cancelling closes the connection under it.
                result.complete(new Read(Arrays.copyOf(buffer, size), false, limit));
                subscription.cancel();
                return;
            }
            append(item, item.remaining());
        }
        subscription.request(1);
    }

    private void append(ByteBuffer item, int count) {
        if (size + count > buffer.length) {
            buffer = Arrays.copyOf(buffer, (int) Math.min(limit, Math.max(size + (long) count, 2L * buffer.length)));
        }
        item.get(buffer, size, count);
        size += count;
    }

    @Override
    public void onError(Throwable throwable) {
        result.completeExceptionally(throwable);
    }

    @Override
    public void onComplete() {
        result.complete(new Read(Arrays.copyOf(buffer, size), true, limit));
    }
}
