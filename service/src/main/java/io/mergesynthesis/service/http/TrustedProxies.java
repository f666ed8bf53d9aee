package io.mergesynthesis.service.http;

import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.Arrays;
import java.util.List;
import org.eclipse.jetty.util.InetAddressSet;

/**
 * The peers whose word about the original request ({@code X-Forwarded-Proto}) is believed: the reverse proxies an
 * operator put in front of the service. Anyone else could write that header to pass for an https visitor.
 */
public final class TrustedProxies {

    private final InetAddressSet addresses;
    private final boolean none;

    private TrustedProxies(InetAddressSet addresses, boolean none) {
        this.addresses = addresses;
        this.none = none;
    }

    /**
     * From entries such as {@code 10.0.0.7}, {@code 10.0.0.0/8} or {@code fd00::/8}; an entry may itself hold several
     * separated by commas, as an environment variable does. Blank entries are ignored.
     */
    public static TrustedProxies of(List<String> entries) {
        InetAddressSet set = new InetAddressSet();
        List<String> patterns = entries.stream()
                .flatMap(entry -> Arrays.stream(entry.split(",")))
                .map(String::strip)
                .filter(pattern -> !pattern.isEmpty())
                .toList();
        for (String pattern : patterns) {
            try {
                set.add(pattern);
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException("web.trustedProxies: \"" + pattern
                        + "\" is not an address or a CIDR range (such as 10.0.0.7 or 10.0.0.0/8)", e);
            }
        }
        return new TrustedProxies(set, patterns.isEmpty());
    }

    /** Whether the peer at this address (as the connection shows it) is one of the trusted proxies. */
    public boolean trusts(String remoteAddress) {
        if (none || remoteAddress == null) {
            return false;
        }
        String literal = remoteAddress.startsWith("[") && remoteAddress.endsWith("]")
                ? remoteAddress.substring(1, remoteAddress.length() - 1) : remoteAddress;
        if (!literal.matches("[0-9a-fA-F.:%]+")) {
            return false; // only a numeric address, never a name to look up
        }
        try {
            return addresses.test(InetAddress.getByName(literal));
        } catch (UnknownHostException e) {
            return false;
        }
    }
}
