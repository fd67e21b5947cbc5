package org.flinkss.runtime.runner;

/**
 * An availableNow run's job failed over while it was being stopped with a savepoint, and was then
 * stopped where its restore from the last checkpoint had got to: before it had read everything the
 * run was to read. Its savepoint keeps that point, so a run from it reads the rest.
 */
final class RestartedWhileStopping extends RuntimeException {

    private static final long serialVersionUID = 1L;

    RestartedWhileStopping(String message) {
        super(message);
    }
}
