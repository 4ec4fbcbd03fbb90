/**
 * The version of the Summoner core semantics profile this module implements (seed 003 §10).
 * A breaking change to parsing, matching or execution increments the major number.
 */
export const PROFILE_VERSION = "0.1.0";

/** The identifier DNA and traces carry, so a reader can pin the profile they were made under. */
export const PROFILE_ID = `summoner-core/${PROFILE_VERSION}`;
