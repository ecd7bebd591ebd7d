using System;
using System.Diagnostics;
using System.IO;
using System.Net;
using System.Net.Sockets;
using System.Text;
using System.Threading;
using System.Threading.Tasks;

namespace Dauth.Tests
{
    /// <summary>The default transport over real sockets: a request and its answer, and cancellation of a request nobody answers.</summary>
    public static class HttpTransportTests
    {
        /// <summary>A one-request HTTP server on a free loopback port; <c>answer</c> null never answers.</summary>
        private sealed class OneShotServer : IDisposable
        {
            private readonly TcpListener listener = new TcpListener(IPAddress.Loopback, 0);
            public readonly TaskCompletionSource<string> Received = new TaskCompletionSource<string>();
            private TcpClient connection;

            public OneShotServer(string answer)
            {
                listener.Start();
                Task.Run(async () =>
                {
                    try
                    {
                        connection = await listener.AcceptTcpClientAsync();
                        var stream = connection.GetStream();
                        var request = ReadRequest(stream);
                        Received.TrySetResult(request);
                        if (answer == null) return; // hold the connection open, never answer
                        var bytes = Encoding.UTF8.GetBytes(answer);
                        stream.Write(bytes, 0, bytes.Length);
                        stream.Flush();
                    }
                    catch (Exception e)
                    {
                        Received.TrySetException(e);
                    }
                });
            }

            public string Url { get { return "http://127.0.0.1:" + ((IPEndPoint)listener.LocalEndpoint).Port; } }

            private static string ReadRequest(Stream stream)
            {
                var head = new StringBuilder();
                while (!head.ToString().EndsWith("\r\n\r\n", StringComparison.Ordinal))
                {
                    int b = stream.ReadByte();
                    if (b < 0) break;
                    head.Append((char)b);
                }
                int length = 0;
                foreach (var line in head.ToString().Split(new[] { "\r\n" }, StringSplitOptions.None))
                    if (line.StartsWith("Content-Length:", StringComparison.OrdinalIgnoreCase)) length = int.Parse(line.Substring(15).Trim());
                var body = new byte[length];
                int read = 0;
                while (read < length) read += stream.Read(body, read, length - read);
                return head + Encoding.UTF8.GetString(body);
            }

            public void Dispose()
            {
                listener.Stop();
                if (connection != null) connection.Close();
            }
        }

        private static string Response(int status, string reason, string body, string extraHeader = "")
        {
            return "HTTP/1.1 " + status + " " + reason + "\r\nContent-Type: application/json\r\n" + extraHeader
                + "Content-Length: " + Encoding.UTF8.GetByteCount(body) + "\r\nConnection: close\r\n\r\n" + body;
        }

        public static void Register(TestRunner t)
        {
            t.Add("http: HttpClientTransport sends the JSON body and bearer, reads a 19-digit id exactly", async () =>
            {
                var answer = "{\"success\":true,\"slots\":[{\"slot_id\":9999999999999999999,\"client_id\":\"g\",\"app_name\":\"Gé\",\"content_address\":\"0xs\",\"balances\":[]}]}";
                using (var server = new OneShotServer(Response(200, "OK", answer)))
                using (var transport = new HttpClientTransport())
                {
                    var slots = await new DauthClient(server.Url, "g", transport).GetSlotsAsync(new PlayerSession("tok", "1"));
                    var request = await server.Received.Task;
                    Assert.True(request.StartsWith("GET /v1/dev-user/slots HTTP/1.1\r\n", StringComparison.Ordinal), request);
                    Assert.True(request.IndexOf("Authorization: Bearer tok\r\n", StringComparison.Ordinal) >= 0, "bearer header");
                    Assert.Equal("9999999999999999999", slots[0].SlotId.Digits);
                    Assert.Equal("Gé", slots[0].AppName);
                }
                using (var server = new OneShotServer(Response(429, "Too Many Requests", "{\"success\":false,\"error\":\"rate_limited\",\"message\":\"slow\"}", "Retry-After: 9\r\n")))
                using (var transport = new HttpClientTransport())
                {
                    var error = await Assert.ThrowsAsync<RateLimitedException>(() => new DauthClient(server.Url, "g", transport).LoginAsync("é@example.com", "pw"));
                    Assert.Equal(9, error.RetryAfterSeconds.Value);
                    var request = await server.Received.Task;
                    Assert.True(request.StartsWith("POST /v1/dev-user/login_devuser HTTP/1.1\r\n", StringComparison.Ordinal), request);
                    Assert.True(request.IndexOf("Content-Type: application/json; charset=utf-8", StringComparison.OrdinalIgnoreCase) >= 0, "JSON content type");
                    Assert.True(request.EndsWith("{\"email\":\"é@example.com\",\"password\":\"pw\",\"client_id\":\"g\"}", StringComparison.Ordinal), request);
                }
            });

            t.Add("http: a redirect is not followed, so the bearer token stays with dauth", async () =>
            {
                using (var elsewhere = new OneShotServer(Response(200, "OK", "{\"success\":true,\"address\":null,\"native_balance\":null,\"token_balance\":null}")))
                using (var server = new OneShotServer(Response(302, "Found", "", "Location: " + elsewhere.Url + "/v1/dev-user/wallet\r\n")))
                using (var transport = new HttpClientTransport())
                {
                    var error = await Assert.ThrowsAsync<DauthException>(() => new DauthClient(server.Url, "g", transport).GetWalletAsync(new PlayerSession("secret-jwt", "1")));
                    Assert.Equal(302, error.Status);
                    await server.Received.Task;
                    await Task.Delay(200);
                    Assert.True(!elsewhere.Received.Task.IsCompleted, "the other host got no request");
                }
            });

            t.Add("http: no answer is a DauthConnectionException: a cut connection, and the transport's own timeout", async () =>
            {
                var listener = new TcpListener(IPAddress.Loopback, 0);
                listener.Start();
                var port = ((IPEndPoint)listener.LocalEndpoint).Port;
                var cut = Task.Run(async () =>
                {
                    using (var connection = await listener.AcceptTcpClientAsync()) { connection.Client.LingerState = new LingerOption(true, 0); }
                });
                using (var transport = new HttpClientTransport())
                {
                    var failed = await Assert.ThrowsAsync<DauthConnectionException>(() =>
                        new DauthClient("http://127.0.0.1:" + port, "g", transport).LoginAsync("a@b.c", "pw"));
                    Assert.Equal(ErrorCodes.ConnectionFailed, failed.Code);
                    Assert.Equal(0, failed.Status);
                }
                await cut;
                listener.Stop();
                using (var server = new OneShotServer(null))
                using (var transport = new HttpClientTransport(TimeSpan.FromMilliseconds(300)))
                {
                    var late = await Assert.ThrowsAsync<DauthConnectionException>(() => new DauthClient(server.Url, "g", transport).LoginAsync("a@b.c", "pw"));
                    Assert.Equal(ErrorCodes.Timeout, late.Code);
                }
            });

            t.Add("cancellation: a CancellationToken ends an in-flight request to a server that never answers", async () =>
            {
                using (var server = new OneShotServer(null))
                using (var transport = new HttpClientTransport(TimeSpan.FromSeconds(60)))
                using (var cancel = new CancellationTokenSource())
                {
                    var client = new DauthClient(server.Url, "g", transport);
                    var watch = Stopwatch.StartNew();
                    var call = client.LoginAsync("p@example.com", "pw", cancel.Token);
                    await server.Received.Task; // the request is in flight: the server holds it
                    Assert.True(!call.IsCompleted, "still waiting for an answer");
                    cancel.CancelAfter(200);
                    await Assert.ThrowsAsync<OperationCanceledException>(() => call);
                    Assert.True(watch.Elapsed < TimeSpan.FromSeconds(5), "ended at the cancellation, not a timeout: " + watch.Elapsed);
                }
            });
        }
    }
}
