/**
 * An entity id assigned before a cast is queued: unique across machines without coordination
 * (UUIDv7: time-ordered), so the worker that starts the cast and one that takes it over name the
 * same entity.
 */
import { v7 } from "uuid";

export const newEntityId = (): string => `entity_${v7()}`;
