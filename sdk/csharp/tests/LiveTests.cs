namespace Dauth.Tests
{
    public static class LiveTests
    {
        public static void Register(TestRunner t) { }
    }
}
