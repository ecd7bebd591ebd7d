module github.com/dauth/dauth/sdk/go

go 1.19
