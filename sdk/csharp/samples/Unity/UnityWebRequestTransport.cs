using System.Net.Http;
using System.Text;
using System.Threading;
using System.Threading.Tasks;
using Dauth;
using UnityEngine.Networking;

/// <summary>
/// dauth's transport over UnityWebRequest (works on every Unity platform, WebGL included, where
/// HttpClient does not). Call the DauthClient from the main thread: the client calls this there.
/// </summary>
public sealed class UnityWebRequestTransport : IDauthTransport
{
    public async Task<DauthHttpResponse> SendAsync(DauthHttpRequest request, CancellationToken cancellationToken)
    {
        cancellationToken.ThrowIfCancellationRequested();
        using (var web = new UnityWebRequest(request.Url, request.Method))
        {
            web.downloadHandler = new DownloadHandlerBuffer();
            if (request.Body != null)
            {
                web.uploadHandler = new UploadHandlerRaw(Encoding.UTF8.GetBytes(request.Body));
                web.SetRequestHeader("Content-Type", request.ContentType);
            }
            foreach (var header in request.Headers) web.SetRequestHeader(header.Key, header.Value);

            var done = new TaskCompletionSource<bool>();
            web.SendWebRequest().completed += _ => done.TrySetResult(true);
            // Cancel from the main thread (a UI button, OnDestroy): Abort is a main-thread call.
            using (cancellationToken.Register(() =>
            {
                web.Abort();
                done.TrySetCanceled();
            }))
            {
                await done.Task;
            }

            if (web.result == UnityWebRequest.Result.ConnectionError)
            {
                throw new HttpRequestException(web.error);
            }
            // A non-2xx answer is returned, not thrown: the SDK reads its error code.
            return new DauthHttpResponse((int)web.responseCode, web.downloadHandler.text, web.GetResponseHeader("Retry-After"));
        }
    }
}
