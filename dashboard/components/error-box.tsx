/** An API error's message, or nothing. */
export function ErrorBox({ error }: { error?: string | undefined }) {
  if (!error) return null;
  return (
    <p class="error" role="alert">
      {error}
    </p>
  );
}
