// A queue URL may carry Redis's password (redis://:PASSWORD@HOST:PORT): it reaches the
// connection, and never a message or a log line.
import { describe, expect, it } from "vitest";
import { connectionOf, shownQueue } from "../../src/queue/connection.js";

describe("queue URLs", () => {
  it("the password reaches the connection", () => {
    expect(connectionOf("redis://:s3cret-pw@127.0.0.1:6380/2")).toEqual({
      host: "127.0.0.1",
      port: 6380,
      db: 2,
      password: "s3cret-pw",
    });
  });

  it("is shown without its credentials", () => {
    expect(shownQueue("redis://:s3cret-pw@127.0.0.1:6380")).toBe("redis://127.0.0.1:6380");
    expect(shownQueue("redis://ann:s3cret-pw@10.0.0.5:6379/1")).toBe("redis://10.0.0.5:6379/1");
    expect(shownQueue("redis://127.0.0.1:6379")).toBe("redis://127.0.0.1:6379");
    expect(shownQueue("redis://:pa/ss@w0rd@127.0.0.1:6379")).toBe("redis://127.0.0.1:6379");
  });

  it("a bad URL's error does not repeat its password", () => {
    for (const bad of ["http://:s3cret-pw@127.0.0.1:6379", "redis://:s3cret-pw@[bad"])
      expect(() => connectionOf(bad)).toThrow(/not a redis:\/\/host:port URL/);
    for (const bad of ["http://:s3cret-pw@127.0.0.1:6379", "redis://:s3cret-pw@[bad"]) {
      let message = "";
      try {
        connectionOf(bad);
      } catch (e) {
        message = (e as Error).message;
      }
      expect(message).not.toContain("s3cret-pw");
    }
  });
});
