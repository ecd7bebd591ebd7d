import type { Request, RequestHandler, Response } from 'express';
import { CallbackBodyTooLargeError, callbackFieldsFrom, readCallbackFields } from './nodeCallbackHandler.js';
import type { CallbackReceiver } from './nodeCallbackHandler.js';

/**
 * An Express route handler for the callback: `app.post('/dauth/callback', expressCallbackHandler(client))`.
 * Works with or without `express.json()` in front of it (without, it reads the body itself). Mount
 * it with `app.post`: the service sends POST, and a GET-only route makes every call time out.
 * Imports only Express's types, so the SDK has no runtime dependency on Express.
 */
export function expressCallbackHandler(receiver: CallbackReceiver): RequestHandler {
  return (request: Request, response: Response, next) => {
    const fields =
      request.body === undefined
        ? readCallbackFields(request)
        : Promise.resolve(callbackFieldsFrom(request.body, request.query));
    fields.then(
      (value) => {
        response.status(200).end();
        receiver.handleCallback(value);
      },
      (error: unknown) => {
        if (error instanceof CallbackBodyTooLargeError) response.status(413).end();
        else next(error);
      },
    );
  };
}
