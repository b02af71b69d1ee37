/**
 * `nerve/testing`: fast-check arbitraries and deterministic interpreters for
 * testing workflows built with Nerve.
 *
 * @packageDocumentation
 */
export {}
