import os
from http.server import ThreadingHTTPServer
from threading import Thread
from urllib.parse import urlsplit
from dauth_sdk import DauthClient, callback_handler_class

env = os.environ
dauth = DauthClient(env["DAUTH_CLIENT_ID"], env["DAUTH_CLIENT_SECRET"], env["DAUTH_REDIRECT_URI"],
                    auth_server_url=env["DAUTH_URL"])  # e.g. http://127.0.0.1:8080
callback = urlsplit(dauth.redirect_uri)  # the service POSTs the callback here: serve it
app = ThreadingHTTPServer((callback.hostname, callback.port), callback_handler_class(dauth, callback.path))
Thread(target=app.serve_forever, daemon=True).start()
slot = dauth.get_slot_info(env["USER_JWT"])  # the login JWT your game client sent
print("slot %s at %s" % (slot.id, slot.content_address))  # keep slot.access_token server-side
dauth.shutdown()
