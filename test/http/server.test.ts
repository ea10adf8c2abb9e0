import { connect } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { createHttpServer } from "../../src/http/server.js";

/** Sends raw bytes and resolves with the status line of the answer. */
function rawRequest(port: number, bytes: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, "127.0.0.1", () => socket.write(bytes));
    let data = "";
    socket.on("data", (chunk) => {
      data += String(chunk);
      if (data.includes("\r\n")) {
        socket.end();
        resolve(data.split("\r\n")[0] ?? "");
      }
    });
    socket.on("error", reject);
    socket.setTimeout(2_000, () => {
      socket.destroy();
      reject(new Error("no answer within 2 s"));
    });
  });
}

describe("the HTTP server", () => {
  const open: { close(ms?: number): Promise<void> }[] = [];
  afterEach(async () => {
    await Promise.all(open.splice(0).map((s) => s.close(100)));
  });

  it("answers 400 to a request target that is no URL, runs no route, and keeps serving", async () => {
    let ran = 0;
    const http = createHttpServer({
      routes: [
        {
          method: "GET",
          path: "/healthz",
          handler: (_req, res) => {
            ran += 1;
            res.end("ok");
          },
        },
      ],
    });
    open.push(http);
    const port = await http.listen(0, "127.0.0.1");
    // Without the guard, `new URL` throws inside the request listener: an unhandled rejection.
    expect(await rawRequest(port, "GET http://[ HTTP/1.1\r\nHost: x\r\n\r\n")).toBe(
      "HTTP/1.1 400 Bad Request",
    );
    expect(ran).toBe(0);
    expect(await rawRequest(port, "GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n")).toBe("HTTP/1.1 200 OK");
    expect(ran).toBe(1);
  });

  it("routes a fixed path the same on every request: the first route of its method, 405 for another, a route added later found (the app only adds routes)", async () => {
    const ran: string[] = [];
    const route = (method: "GET" | "POST", path: string, name: string) => ({
      method,
      path,
      handler: (_req: unknown, res: { end(body: string): void }, params: Record<string, string>) => {
        ran.push(`${name}${params.token ? `:${params.token}` : ""}`);
        res.end("ok");
      },
    });
    const routes = [route("POST", "/hooks/:token", "param"), route("POST", "/hooks/orders", "fixed")];
    const http = createHttpServer({ routes });
    open.push(http);
    const port = await http.listen(0, "127.0.0.1");
    const post = (path: string, method = "POST") =>
      rawRequest(port, `${method} ${path} HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\n\r\n`);
    // The param route comes first, so it takes the fixed path too, every time, with its parameter.
    expect(await post("/hooks/orders")).toBe("HTTP/1.1 200 OK");
    expect(await post("/hooks/orders")).toBe("HTTP/1.1 200 OK");
    expect(await post("/hooks/orders", "GET")).toBe("HTTP/1.1 405 Method Not Allowed");
    routes.push(route("GET", "/hooks/orders", "get"));
    expect(await post("/hooks/orders", "GET")).toBe("HTTP/1.1 200 OK");
    expect(await post("/hooks/other")).toBe("HTTP/1.1 200 OK");
    expect(ran).toEqual(["param:orders", "param:orders", "get", "param:other"]);
  });
});
