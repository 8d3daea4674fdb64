// What the sidecar's answer to POST /frame means for the user: a dropped frame says why (the
// reason the model session gave), so nobody retries what can never work.

/** What a dropped frame means for the user, by the reason the sidecar gave. */
export function frameDropMessage(reason: unknown): string {
  if (reason === 'rate_limited')
    return 'The image was dropped: a newer one replaced it (one image a second); try again in a moment.';
  if (reason === 'unsupported_by_model') return 'The image was not sent: this live model does not take images.';
  if (reason === 'not_connected' || reason === 'closed')
    return 'The image was not sent: the model is not connected right now.';
  if (typeof reason === 'string' && reason.startsWith('rejected:'))
    return `The model service refused the image (${reason.slice('rejected:'.length).trim()}).`;
  return 'The image was dropped.';
}
