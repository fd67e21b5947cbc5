package org.flinkss.runtime.ops;

/**
 * The steps of a reset, by name, and a test hook on them: with {@code
 * -Dflinkss.test.resetPauseAfter=<step>} a reset stops after that step, says so on stderr and
 * waits, so that a test can kill the process exactly there (the kill-during-reset series also kills
 * at seeded moments, without the hook). Without the property, nothing happens.
 */
final class ResetSteps {

    static final String PROPERTY = "flinkss.test.resetPauseAfter";

    /** The marker is written: nothing is deleted yet. */
    static final String MARKED = "marked";

    /** The checkpoint's parts are deleted, its identity too. */
    static final String DELETED = "deleted";

    /** The new identity is written. */
    static final String RENEWED = "renewed";

    /** One warehouse table is emptied (after each). */
    static final String EMPTIED_ONE = "emptied-one";

    /** Every table is emptied: only the marker is left to remove. */
    static final String EMPTIED_ALL = "emptied-all";

    private ResetSteps() {}

    static void reached(String step) {
        if (step.equals(System.getProperty(PROPERTY))) {
            System.err.println("reset paused after step '" + step + "' (" + PROPERTY + ")");
            System.err.flush();
            try {
                Thread.sleep(Long.MAX_VALUE);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }
}
