module github.com/dauth/sdk-go

go 1.19
