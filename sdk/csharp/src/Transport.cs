using System;
using System.Collections.Generic;
using System.Net.Http;
using System.Text;
using System.Threading;
using System.Threading.Tasks;

namespace Dauth
{
    /// <summary>One HTTP request as the client builds it: method, absolute URL, headers and a text body.</summary>
    public sealed class DauthHttpRequest
    {
        public DauthHttpRequest(string method, Uri url, IDictionary<string, string> headers, string body, string contentType)
        {
            Method = method;
            Url = url;
            Headers = headers ?? new Dictionary<string, string>();
            Body = body;
            ContentType = contentType;
        }

        /// <summary>"GET" or "POST".</summary>
        public string Method { get; private set; }
        public Uri Url { get; private set; }
        /// <summary>Headers besides Content-Type (Authorization, Accept).</summary>
        public IDictionary<string, string> Headers { get; private set; }
        /// <summary>The body text (UTF-8 on the wire), or null for none.</summary>
        public string Body { get; private set; }
        /// <summary>"application/json" or "application/x-www-form-urlencoded"; null without a body.</summary>
        public string ContentType { get; private set; }
    }

    /// <summary>An HTTP answer: its status, body text and the headers the client reads (Retry-After).</summary>
    public sealed class DauthHttpResponse
    {
        public DauthHttpResponse(int status, string body, string retryAfter = null)
        {
            Status = status;
            Body = body ?? "";
            RetryAfter = retryAfter;
        }

        public int Status { get; private set; }
        public string Body { get; private set; }
        /// <summary>The Retry-After header's value as sent (seconds), or null.</summary>
        public string RetryAfter { get; private set; }
    }

    /// <summary>
    /// Sends one request. The SDK ships <see cref="HttpClientTransport"/>; a Unity project can plug in
    /// UnityWebRequest instead (samples/Unity/UnityWebRequestTransport.cs). An implementation must
    /// stop waiting and throw <see cref="OperationCanceledException"/> when the token is cancelled,
    /// and must not throw for a non-2xx status: it returns the status and body.
    /// </summary>
    public interface IDauthTransport
    {
        Task<DauthHttpResponse> SendAsync(DauthHttpRequest request, CancellationToken cancellationToken);
    }

    /// <summary>The default transport, over one shared <see cref="HttpClient"/>.</summary>
    public sealed class HttpClientTransport : IDauthTransport, IDisposable
    {
        private readonly HttpClient http;
        private readonly bool ownsClient;

        /// <summary>
        /// A transport with its own HttpClient and the given overall timeout (default 30 s). It never
        /// follows redirects: a bearer token is not carried to another host; a 3xx is an error.
        /// </summary>
        public HttpClientTransport(TimeSpan? timeout = null)
        {
            http = new HttpClient(new HttpClientHandler { AllowAutoRedirect = false }) { Timeout = timeout ?? TimeSpan.FromSeconds(30) };
            ownsClient = true;
        }

        /// <summary>A transport over the application's HttpClient, which the application disposes.</summary>
        public HttpClientTransport(HttpClient client)
        {
            if (client == null) throw new ArgumentNullException("client");
            http = client;
        }

        public async Task<DauthHttpResponse> SendAsync(DauthHttpRequest request, CancellationToken cancellationToken)
        {
            using (var message = new HttpRequestMessage(new HttpMethod(request.Method), request.Url))
            {
                foreach (var header in request.Headers) message.Headers.TryAddWithoutValidation(header.Key, header.Value);
                if (request.Body != null)
                {
                    message.Content = new StringContent(request.Body, Encoding.UTF8, request.ContentType ?? "application/json");
                }
                using (var response = await http.SendAsync(message, HttpCompletionOption.ResponseContentRead, cancellationToken)
                    .ConfigureAwait(false))
                {
                    cancellationToken.ThrowIfCancellationRequested();
                    var bytes = await response.Content.ReadAsByteArrayAsync().ConfigureAwait(false);
                    string retryAfter = null;
                    if (response.Headers.RetryAfter != null)
                    {
                        retryAfter = response.Headers.RetryAfter.Delta.HasValue
                            ? ((int)response.Headers.RetryAfter.Delta.Value.TotalSeconds).ToString()
                            : null;
                    }
                    return new DauthHttpResponse((int)response.StatusCode, Encoding.UTF8.GetString(bytes), retryAfter);
                }
            }
        }

        public void Dispose()
        {
            if (ownsClient) http.Dispose();
        }
    }
}
