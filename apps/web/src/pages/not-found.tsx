export function NotFound() {
  return (
    <section>
      <h1 tabIndex={-1}>Page not found</h1>
      <p>
        There is nothing at this address. <a href="#/">Go to the repositories</a>.
      </p>
    </section>
  );
}
