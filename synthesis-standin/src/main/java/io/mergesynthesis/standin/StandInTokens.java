package io.mergesynthesis.standin;

/**
 * The stand-in's own token count: a stand-in for a provider's tokenizer, not a copy of one. It counts the way
 * byte-pair tokenizers behave on English and JSON: a word of up to six letters is one token and a longer one
 * more, digits go in threes, runs of punctuation in twos, a space joins the word after it and a line break with
 * its indentation is one token. It reads JSON as costlier than a quarter of its characters, as real tokenizers do.
 */
public final class StandInTokens {

    private StandInTokens() {
    }

    public static long count(CharSequence text) {
        long tokens = 0;
        int i = 0;
        int n = text.length();
        while (i < n) {
            char c = text.charAt(i);
            int start = i;
            if (Character.isLetter(c)) {
                while (i < n && Character.isLetter(text.charAt(i))) {
                    i++;
                }
                tokens += (i - start + 5) / 6;
            } else if (Character.isDigit(c)) {
                while (i < n && Character.isDigit(text.charAt(i))) {
                    i++;
                }
                tokens += (i - start + 2) / 3;
            } else if (Character.isWhitespace(c)) {
                boolean lineBreak = false;
                while (i < n && Character.isWhitespace(text.charAt(i))) {
                    lineBreak |= text.charAt(i) == '\n';
                    i++;
                }
                tokens += lineBreak ? 1 : 0;
            } else {
                while (i < n && !Character.isLetterOrDigit(text.charAt(i)) && !Character.isWhitespace(text.charAt(i))) {
                    i++;
                }
                tokens += (i - start + 1) / 2;
            }
        }
        return tokens;
    }
}
