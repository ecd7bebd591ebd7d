using System;
using System.Collections.Generic;
using System.Threading;
using System.Threading.Tasks;

namespace Dauth.Tests
{
    /// <summary>Records each request and answers from a handler: for the request shapes and the error mapping.</summary>
    public sealed class FakeTransport : IDauthTransport
    {
        private readonly Func<DauthHttpRequest, DauthHttpResponse> answer;
        public readonly List<DauthHttpRequest> Requests = new List<DauthHttpRequest>();

        public FakeTransport(Func<DauthHttpRequest, DauthHttpResponse> answer) { this.answer = answer; }

        public FakeTransport(int status, string body, string retryAfter = null) : this(_ => new DauthHttpResponse(status, body, retryAfter)) { }

        public Task<DauthHttpResponse> SendAsync(DauthHttpRequest request, CancellationToken cancellationToken)
        {
            cancellationToken.ThrowIfCancellationRequested();
            Requests.Add(request);
            return Task.FromResult(answer(request));
        }

        public DauthHttpRequest Last { get { return Requests[Requests.Count - 1]; } }

        /// <summary>The last request's JSON body.</summary>
        public JsonValue LastBody { get { return JsonParser.Parse(Last.Body); } }
    }
}
