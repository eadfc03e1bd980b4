import http from 'node:http';
import net from 'node:net';

/**
 * A loopback proxy as a corporate one is: CONNECT tunnels (counted), and plain requests for an
 * absolute http:// URL forwarded (counted apart); anything else is refused. Every host resolves
 * to 127.0.0.1 here, so tests name servers by hosts that are not loopback (`judge.test`), which
 * the runner's rules would reach directly.
 */
export async function connectProxy(): Promise<{
  url: string;
  tunnels: () => number;
  forwarded: () => number;
  close: () => Promise<void>;
}> {
  let tunnels = 0;
  let forwarded = 0;
  const sockets = new Set<net.Socket>();
  const server = http.createServer((req, res) => {
    if (!/^http:\/\//.test(req.url ?? '')) {
      res.writeHead(405);
      res.end();
      return;
    }
    forwarded++;
    const target = new URL(req.url!);
    const up = http.request(
      {
        host: '127.0.0.1',
        port: target.port,
        path: target.pathname + target.search,
        method: req.method,
        headers: req.headers,
      },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      },
    );
    up.on('error', () => res.destroy());
    req.pipe(up);
  });
  server.on('connect', (req: http.IncomingMessage, client: net.Socket, head: Buffer) => {
    tunnels++;
    const port = (req.url ?? '').split(':').at(-1);
    const up = net.connect(Number(port), '127.0.0.1', () => {
      client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
      up.write(head);
      up.pipe(client).pipe(up);
    });
    for (const s of [client, up]) {
      sockets.add(s);
      s.on('close', () => sockets.delete(s));
      s.on('error', () => s.destroy());
    }
  });
  const port = await new Promise<number>((resolve) =>
    server.listen(0, '127.0.0.1', () => resolve((server.address() as net.AddressInfo).port)),
  );
  return {
    url: `http://127.0.0.1:${port}`,
    tunnels: () => tunnels,
    forwarded: () => forwarded,
    close: () => {
      for (const s of sockets) s.destroy();
      server.closeAllConnections();
      return new Promise((r) => server.close(() => r()));
    },
  };
}
