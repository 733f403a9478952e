import { Component, type ReactNode } from 'react';

/** A page that throws while rendering shows a way out instead of a blank screen; the next route starts clean. */
export class ErrorBoundary extends Component<{ resetKey: string; children: ReactNode }, { error: Error | null; key: string }> {
  override state = { error: null as Error | null, key: this.props.resetKey };

  static getDerivedStateFromError(error: Error) {
    return { error };
  }

  static getDerivedStateFromProps(props: { resetKey: string }, state: { error: Error | null; key: string }) {
    return props.resetKey !== state.key ? { error: null, key: props.resetKey } : null;
  }

  override render() {
    if (!this.state.error) return this.props.children;
    return (
      <div role="alert" className="alert error">
        <strong>This page failed to show.</strong> {this.state.error.message}{' '}
        <button type="button" className="link" onClick={() => location.reload()}>
          Reload
        </button>
      </div>
    );
  }
}
